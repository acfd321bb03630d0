//! The server's `sexpr` shell: any line gets a one-line reply (an answer or
//! `(error ...)`), never a panic, and leaves the space consistent.
#![no_main]

use atomweave_fuzz::run_shell;
use atomweave_server::sexpr_shell;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run_shell(data, sexpr_shell::eval, |reply| assert!(!reply.contains('\n'), "a reply of several lines: {reply:?}")));
