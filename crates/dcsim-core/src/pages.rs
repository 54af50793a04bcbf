//! The sampled series' memory made resident a little ahead of the writes, in huge pages where
//! the kernel grants them.
//!
//! A series' columns are reserved at their largest size before the run (`reserve_series` in
//! `sim.rs`) and the pages are touched only as rows are written, so memory follows what is
//! written. Each first touch of a page is a page fault; on the machine this was measured on (a
//! virtual machine) one costs ~2 µs, and a second of N = 10 traced every 10 µs writes ~40 MB,
//! ~10 000 faults. Asking the kernel to make the next chunk resident in one call
//! (`madvise(MADV_POPULATE_WRITE)`, Linux >= 5.14) does the same zeroing without a fault per
//! page. At most [`CHUNK`] bytes per column are made resident ahead of the rows written, within
//! the reserved (memory-checked) capacity, so the peak memory stays what the written rows take.
//! A hint only: where the call is missing or refused, the pages fault in as before, and no result
//! depends on it. Measured (1 s of DCTCP; page faults, and median wall time of interleaved runs
//! against the code before): N = 10 10 751 -> 153 faults, 0.2256 -> 0.2067 s; 5 000 flows with
//! the default metrics 53 757 -> ~8 000 faults, 0.558 -> 0.524 s.
//!
//! Each reserved column also asks for transparent huge pages before its first chunk is populated
//! ([`advise_huge`]), so that a chunk is zeroed 2 MiB at a time: on the Intel Xeon VM of
//! 2026-11-30 the N = 10 run's page faults (the kernel's own while populating, which the count
//! above leaves out) fell from ~7 100 to ~2 300 a run, and its time by 4 % (medians of 8
//! interleaved best-of-3 runs, 0.1819 -> 0.1743 s; 5 000 flows unchanged, 0.398 / 0.400 s), with
//! the same peak memory (44.9 MB: the chunks, not the pages, bound what is resident ahead).

/// Bytes made resident at a time, ahead of the rows written. Larger calls cost less per page
/// (N = 10, 11 interleaved runs each, median: 512 KiB 0.2189 s, 2 MiB 0.2153-0.2164 s, 8 MiB
/// 0.2066 s, 32 MiB 0.2057 s); 8 MiB per column bounds what is resident ahead of the rows.
pub const CHUNK: usize = 8 << 20;

/// How far one column's buffer is resident (bytes from its start).
#[derive(Clone, Copy, Default, Debug)]
pub struct Ahead {
    done: usize,
}

impl Ahead {
    /// Keep the next [`CHUNK`] bytes after the rows of `v` resident: when the rows come within
    /// half a chunk of the resident end, the next chunk (up to the capacity) is populated.
    #[inline]
    pub fn keep<T>(&mut self, v: &Vec<T>) {
        let size = std::mem::size_of::<T>();
        let used = v.len() * size;
        if used + CHUNK / 2 < self.done {
            return;
        }
        let cap = v.capacity() * size;
        if self.done == 0 {
            advise_huge(v.as_ptr() as usize, v.as_ptr() as usize + cap);
        }
        let from = self.done.max(used);
        let to = (from + CHUNK).min(cap);
        if to > from {
            populate(v.as_ptr() as usize + from, v.as_ptr() as usize + to);
        }
        self.done = to.max(self.done);
    }
}

/// The resident marks of a probe's columns, in the order `keep_resident` visits them.
#[derive(Clone, Copy, Default, Debug)]
pub struct Resident(pub [Ahead; 6]);

/// Ask for transparent huge pages (2 MiB) inside [start, end), where the kernel grants them on
/// request (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`, as here, or `always`): one
/// fault and one zeroing per 2 MiB instead of per 4 KiB when the chunk is populated. A hint only.
#[inline]
fn advise_huge(start: usize, end: usize) {
    const HUGE: usize = 2 << 20;
    let (a, b) = ((start + HUGE - 1) & !(HUGE - 1), end & !(HUGE - 1));
    if b <= a {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: [a, b) lies inside one live allocation (a Vec's reserved capacity); MADV_HUGEPAGE
    // only changes how its pages are backed, not their contents.
    unsafe {
        libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_HUGEPAGE);
    }
}

/// Make the whole pages inside [start, end) resident and writable (Linux); elsewhere nothing.
/// Whether the kernel did (false: nothing to do, or not supported; the pages then fault in on
/// first touch, as without the call).
#[inline]
fn populate(start: usize, end: usize) -> bool {
    const PAGE: usize = 4096;
    let (a, b) = ((start + PAGE - 1) & !(PAGE - 1), end & !(PAGE - 1));
    if b <= a {
        return false;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: [a, b) lies inside one live allocation (a Vec's reserved capacity), whose pages
    // are ours and writable; MADV_POPULATE_WRITE only faults them in (their contents are not
    // read and stay as they are). An error (an older kernel: EINVAL) leaves them as they were.
    unsafe {
        libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_POPULATE_WRITE) == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_chunk_ahead_within_the_capacity_and_leaves_the_values_alone() {
        let rows = 4 * CHUNK / 8; // f64 rows: a capacity of four chunks
        let half = CHUNK / 8 / 2;
        let mut v: Vec<f64> = Vec::with_capacity(rows);
        let mut a = Ahead::default();
        a.keep(&v);
        assert_eq!(a.done, CHUNK);
        for i in 0..half - 1 {
            v.push(i as f64);
        }
        a.keep(&v); // still more than half a chunk ahead
        assert_eq!(a.done, CHUNK);
        v.push(0.5);
        v.push(0.25);
        a.keep(&v);
        assert_eq!(a.done, 2 * CHUNK);
        v.resize(rows, 7.0);
        a.keep(&v); // at the capacity: nothing beyond it
        assert_eq!(a.done, 4 * CHUNK);
        assert_eq!(v[half - 2], (half - 2) as f64);
        assert_eq!(v[half], 0.25);
        assert_eq!(v[rows - 1], 7.0);
        let empty: Vec<u64> = Vec::new();
        let mut e = Ahead::default();
        e.keep(&empty);
        assert_eq!(e.done, 0);
    }

    /// This thread's minor page faults so far.
    #[cfg(target_os = "linux")]
    fn minor_faults() -> i64 {
        // SAFETY: getrusage writes into the zeroed struct we pass.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
        u.ru_minflt
    }

    /// A fresh private anonymous map of CHUNK bytes (the caller unmaps it).
    #[cfg(target_os = "linux")]
    fn fresh_map() -> *mut u8 {
        // SAFETY: a new map; nothing else refers to it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                CHUNK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        p as *mut u8
    }

    /// Where the kernel grants huge pages on request (THP `madvise` or `always` in
    /// /sys/kernel/mm/transparent_hugepage/enabled), the advised map holds them (its
    /// `AnonHugePages` in /proc/self/smaps) and populating it takes one fault per 2 MiB instead of
    /// one per 4 KiB page: CHUNK = 8 MiB is ~2 048 faults without the advice, and with it at most
    /// 3 huge pages + 1 023 small ones at the map's unaligned ends, under half. Where THP is
    /// `never` (or absent), the kernel does not compact memory for such a request (`defrag`), or
    /// cannot populate (Linux < 5.14), there is nothing to check.
    #[cfg(target_os = "linux")]
    #[test]
    fn huge_page_advice_populates_a_chunk_with_fewer_faults_where_granted() {
        fn huge_kb_at(addr: usize) -> u64 {
            let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
            let mut inside = false;
            for line in smaps.lines() {
                if let Some((range, _)) = line.split_once(' ') {
                    if let Some((a, b)) = range.split_once('-') {
                        if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                            inside = a <= addr && addr < b;
                            continue;
                        }
                    }
                }
                if inside {
                    if let Some(kb) = line.strip_prefix("AnonHugePages:") {
                        return kb.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
                    }
                }
            }
            0
        }
        let (plain, huge) = (fresh_map(), fresh_map());
        let f0 = minor_faults();
        populate(plain as usize, plain as usize + CHUNK);
        let faults_plain = minor_faults() - f0;
        let f1 = minor_faults();
        advise_huge(huge as usize, huge as usize + CHUNK);
        let populated = populate(huge as usize, huge as usize + CHUNK);
        let faults_huge = minor_faults() - f1;
        let aligned = (huge as usize + (2 << 20) - 1) & !((2 << 20) - 1);
        let granted = huge_kb_at(aligned);
        // SAFETY: the two maps made above, no longer used.
        unsafe {
            libc::munmap(plain as *mut libc::c_void, CHUNK);
            libc::munmap(huge as *mut libc::c_void, CHUNK);
        }
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        // Compaction on request, so that a huge page is found even in fragmented memory.
        let defrag = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/defrag").unwrap_or_default();
        let compacts = ["[always]", "[madvise]", "[defer+madvise]"].iter().any(|m| defrag.contains(m));
        if !(thp.contains("[madvise]") || thp.contains("[always]")) || !compacts || !populated {
            eprintln!(
                "huge pages are not granted on request here (THP {}, defrag {}, populate {populated}): nothing to check",
                thp.trim(),
                defrag.trim()
            );
            return;
        }
        assert!(granted > 0, "THP {}: the advised map holds no huge page", thp.trim());
        if faults_plain >= (CHUNK / 4096 / 2) as i64 {
            // (a kernel whose populate counts its faults, as Linux 6.1 here)
            assert!(2 * faults_huge < faults_plain, "with the advice {faults_huge} faults, without {faults_plain}");
        }
    }

    /// Where the kernel populates, writing the populated pages takes (almost) no page fault, where
    /// writing as many fresh pages takes one per page. (Counts, not times; on fresh anonymous
    /// maps, which no earlier allocation of the test process can have touched; skipped where the
    /// call is not supported.)
    #[cfg(target_os = "linux")]
    #[test]
    fn populated_pages_take_no_fault_when_written() {
        let pages = CHUNK / 4096;
        let write = |p: *mut u8| {
            let f0 = minor_faults();
            for i in 0..pages {
                // SAFETY: inside the map.
                unsafe { p.add(i * 4096).write_volatile(1) };
            }
            minor_faults() - f0
        };
        let (fresh, ahead) = (fresh_map(), fresh_map());
        let faults_fresh = write(fresh);
        let populated = populate(ahead as usize, ahead as usize + CHUNK);
        let faults_ahead = write(ahead);
        // SAFETY: the two maps made above, no longer used.
        unsafe {
            libc::munmap(fresh as *mut libc::c_void, CHUNK);
            libc::munmap(ahead as *mut libc::c_void, CHUNK);
        }
        assert!(faults_fresh as usize > pages / 2, "fresh pages: {faults_fresh} faults for {pages} pages");
        if !populated {
            eprintln!("MADV_POPULATE_WRITE not supported here (Linux < 5.14?): nothing more to check");
            return;
        }
        assert!((faults_ahead as usize) < pages / 20, "populated pages: {faults_ahead} faults for {pages} pages");
    }
}
