//! The server's `json` shell: any line gets one line of JSON back (an
//! answer or `{"error": ...}`), never a panic, and leaves the space
//! consistent.
#![no_main]

use atomweave_fuzz::run_shell;
use atomweave_server::json_shell;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run_shell(data, json_shell::eval, |reply| {
    let line = reply.strip_suffix('\n').unwrap_or_else(|| panic!("a reply without its newline: {reply:?}"));
    assert!(!line.contains('\n'), "a reply of several lines: {reply:?}");
    assert!(serde_json::from_str::<serde_json::Value>(line).is_ok(), "a reply that is not JSON: {line:?}");
}));
