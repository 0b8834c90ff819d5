//! A global allocator that counts: the system allocator, with the bytes live now and the most
//! live since the last reset. Shared by the step bench and the soak test, which each declare
//! it their `#[global_allocator]`; it counts bytes asked for, not the allocator's overhead nor
//! resident memory.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live now and the most live since the last reset.
pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grow(bytes: usize) {
        let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }

    fn shrink(bytes: usize) {
        CURRENT.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Return the bytes live now.
    pub fn current() -> usize {
        CURRENT.load(Ordering::Relaxed)
    }

    /// Return the most bytes live since the last reset.
    pub fn peak() -> usize {
        PEAK.load(Ordering::Relaxed)
    }

    /// Start a new peak from the bytes live now, and return them.
    pub fn reset_peak() -> usize {
        let now = Self::current();
        PEAK.store(now, Ordering::Relaxed);
        now
    }
}

// SAFETY: every call goes to `System` unchanged; the counters only watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            Self::grow(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            Self::grow(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        Self::shrink(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        // On failure the old block stays as it was
        if !new.is_null() {
            if new_size >= layout.size() {
                Self::grow(new_size - layout.size());
            } else {
                Self::shrink(layout.size() - new_size);
            }
        }
        new
    }
}
