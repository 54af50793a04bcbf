//! Software prefetch hints: ask the CPU to bring a cache line in ahead of its use, so that the
//! cache misses of the next events overlap with the work on the current one. A hint never faults
//! and never changes a result; on targets without one it does nothing.

/// Prefetch the cache line holding `p` into every cache level.
#[inline(always)]
pub fn line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing architecturally and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Prefetch every cache line of the value at `p`.
#[inline(always)]
pub fn value<T>(p: *const T) {
    bytes(p, std::mem::size_of::<T>());
}

/// Prefetch every cache line of the `bytes` bytes from `p` on.
#[inline(always)]
pub fn bytes<T>(p: *const T, bytes: usize) {
    if bytes == 0 {
        return;
    }
    let p = p as *const u8;
    let mut off = 0;
    while off < bytes {
        line(p.wrapping_add(off));
        off += 64;
    }
    // The last line, when `p` is not aligned to a line.
    line(p.wrapping_add(bytes - 1));
}
