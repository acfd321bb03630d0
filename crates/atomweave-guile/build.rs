//! Links libguile-3.0, found by pkg-config (Debian: guile-3.0-dev).

fn main() {
    if let Err(e) = pkg_config::Config::new().atleast_version("3.0").probe("guile-3.0") {
        panic!("atomweave-guile needs Guile 3.0's development files (Debian: apt-get install guile-3.0-dev): {e}");
    }
}
