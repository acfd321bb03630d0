//! Pages of big arrays of atomic words, mapped and given back to the
//! system (Linux `madvise`), for the dedupe tables and the incoming-set
//! pool. Elsewhere (and under Miri, which has no `madvise`) both calls do
//! nothing: pages are mapped on first touch, and given-back contents stay.

use std::sync::atomic::AtomicU32;

/// Maps the whole pages of `words`, all zero, writable at once. A fresh
/// zeroed allocation is mapped on first touch, and a reader of an entry
/// before its first write maps the shared zero page, which the write then
/// faults to replace; replacing a mapping flushes it from every core
/// running the process (an interrupt to each, costly under a hypervisor),
/// which a dedupe rebuild would do under a shard's lock. One call maps them all.
pub(crate) fn populate(words: &[AtomicU32]) {
    #[cfg(all(target_os = "linux", not(miri)))]
    if let Some((from, len)) = whole_pages(words) {
        // SAFETY: whole pages of a live allocation of ours; populating
        // changes no contents (the pages are zero either way).
        if unsafe { libc::madvise(from as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) } != 0 {
            // Kernels before 5.14: one write per page does the same.
            for w in words.iter().step_by(page_size() / 4) {
                w.store(0, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }
    #[cfg(any(not(target_os = "linux"), miri))]
    let _ = words;
}

/// Gives the whole pages of `words` back to the system, keeping them
/// mapped: later reads see zeroes, a later write maps a page again. For
/// memory no one writes until it is handed out anew, and whose lock-free
/// readers take zeroes for "nothing" or read again.
pub(crate) fn release(words: &[AtomicU32]) {
    #[cfg(all(target_os = "linux", not(miri)))]
    if let Some((from, len)) = whole_pages(words) {
        // SAFETY: whole pages inside a live allocation, which stays mapped;
        // the caller's contract covers the zeroes readers will see.
        unsafe { libc::madvise(from as *mut libc::c_void, len, libc::MADV_DONTNEED) };
    }
    #[cfg(any(not(target_os = "linux"), miri))]
    let _ = words;
}

#[cfg(all(target_os = "linux", not(miri)))]
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).max(4096) as usize
}

/// The start and length of the whole pages inside `words`, if any.
#[cfg(all(target_os = "linux", not(miri)))]
fn whole_pages(words: &[AtomicU32]) -> Option<(usize, usize)> {
    let page = page_size();
    let start = words.as_ptr() as usize;
    let end = start + std::mem::size_of_val(words);
    let (from, to) = (start.next_multiple_of(page), end / page * page);
    (to > from).then(|| (from, to - from))
}
