//! The generic address layout (64-bit): global region `r` at `GLOBAL_BASE + r·2³²`, the shared
//! window at [`SHARED_WINDOW`] (each CTA sees its own shared memory there, as on a GPU), the
//! local window at [`LOCAL_WINDOW`], functions at [`FUNC_BASE`]. Address 0 and anything else is
//! outside every space, so a stray pointer faults. Below decoding, which resolves a function's
//! name to its address.

pub const GLOBAL_BASE: u64 = 0x0000_1000_0000_0000;
pub const SHARED_WINDOW: u64 = 0x0000_7000_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x0000_7100_0000_0000;
pub const FUNC_BASE: u64 = 0x0000_7f00_0000_0000;
/// The size of each window.
pub const WINDOW: u64 = 1 << 32;

/// The code address of function `i` of the module (what `mov.b64 %rd, fn` yields).
pub fn func_addr(i: u32) -> u64 {
    FUNC_BASE + u64::from(i) * 16
}

/// The module function a code address names.
pub fn func_at(addr: u64) -> Option<u32> {
    ((FUNC_BASE..FUNC_BASE + WINDOW).contains(&addr) && addr.is_multiple_of(16))
        .then(|| ((addr - FUNC_BASE) / 16) as u32)
}

/// The global address of region `r`.
pub fn region_base(r: u32) -> u64 {
    GLOBAL_BASE + (u64::from(r) << 32)
}
