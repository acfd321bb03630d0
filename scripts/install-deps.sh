#!/usr/bin/env bash
# Installs what the build and tests need, and only what is missing, on Debian.
set -euo pipefail

need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }

have cc || need_apt+=(build-essential)
have pkg-config || need_apt+=(pkg-config)
# The server's TLS (rustls with aws-lc-rs) builds AWS-LC's C with cc, or
# with cmake where that build does not apply.
have cmake || need_apt+=(cmake)
# The browser tests of the server's UI drive Chromium through chromedriver.
have chromium || need_apt+=(chromium)
have chromedriver || need_apt+=(chromium-driver)
# The Python package builds in a virtualenv (maturin, pytest from PyPI).
have python3 || need_apt+=(python3)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
# The Guile extension embeds Python (`(opencog python)`): it links libpython.
python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDLIBRARY"))))' || need_apt+=(python3-dev)
# The PostgreSQL tests start their own throwaway server from these binaries.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need_apt+=(postgresql)
# The Redis tests and persist-bench start their own servers and clusters.
have redis-server || need_apt+=(redis-server)
have redis-cli || need_apt+=(redis-tools)
# The Guile extension builds against libguile; its tests run `guile`.
[ -f /usr/include/guile/3.0/libguile.h ] && have guile || need_apt+=(guile-3.0-dev guile-3.0)
# rocks:// (upstream's RocksDB stores) links Debian's librocksdb, whose
# bindings bindgen makes with libclang (.cargo/config.toml).
[ -f /usr/include/rocksdb/c.h ] || need_apt+=(librocksdb-dev)
# (libclang itself: a machine may hold libclang-cpp, LLVM's C++ library, alone.)
compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null || compgen -G '/usr/lib/*/libclang-[0-9]*.so*' >/dev/null || need_apt+=(libclang-dev)
# bench-plot draws its labels with DejaVu Sans.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)

if [ ${#need_apt[@]} -gt 0 ]; then
    echo "install-deps: installing ${need_apt[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

if ! have cargo; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
        echo "install-deps: cargo is in ~/.cargo/bin; add it to PATH" >&2
    else
        echo "install-deps: no Rust toolchain; install rustup (https://rustup.rs); it installs the pinned Rust (rust-toolchain.toml)" >&2
    fi
    exit 1
fi

# The toolchain rust-toolchain.toml pins, with its components: rustup
# (1.28 on) installs it only when asked. Older rustups do it on `show`.
root="$(dirname "$0")/.."
if have rustup && ! rustup run "$(sed -n 's/^channel = "\(.*\)"/\1/p' "$root/rust-toolchain.toml")" rustc --version >/dev/null 2>&1; then
    echo "install-deps: installing the pinned Rust toolchain (rust-toolchain.toml)"
    (cd "$root" && { rustup toolchain install 2>/dev/null || rustup show >/dev/null; })
fi

# `make test` checks formatting and lints; rustup's default profile has both.
for tool in fmt:rustfmt clippy:clippy; do
    if ! cargo "${tool%%:*}" --version >/dev/null 2>&1; then
        if have rustup; then
            echo "install-deps: installing ${tool#*:}"
            rustup component add "${tool#*:}"
        else
            echo "install-deps: cargo ${tool%%:*} is missing and there is no rustup to add it" >&2
            exit 1
        fi
    fi
done
