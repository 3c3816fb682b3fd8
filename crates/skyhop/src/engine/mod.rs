//! The discrete-event core: time, the event queue, random streams.
pub mod queue;
pub mod rng;
pub mod time;

pub use queue::EventQueue;
pub use rng::RngStream;
pub use time::{Dur, Time};

/// Ask the processor to bring the cache line holding `x` in ahead of use (a
/// hint: no effect on results; nothing on other architectures).
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints; `x` is a live reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// `prefetch` every cache line of `x` (for a structure of a few lines that
/// will be read soon, in an order not worth spelling out).
#[inline(always)]
pub fn prefetch_all<T>(x: &T) {
    let b = (x as *const T).cast::<u8>();
    let mut o = 0;
    while o < std::mem::size_of::<T>() {
        // SAFETY: `b + o` lies inside `*x`.
        prefetch(unsafe { &*b.add(o) });
        o += 64;
    }
}

/// `prefetch` the first element of `d`, if any.
#[inline(always)]
pub fn prefetch_first<T>(d: &std::collections::VecDeque<T>) {
    if let Some(x) = d.front() {
        prefetch(x);
    }
}
