//! Kernels written with `scoped-atomics`, compiled to PTX by the nightly + `-Zbuild-std=core`
//! pipeline of the `host` crate: one probe kernel per (operation, type, ordering, scope), checked
//! against the PTX Atomics ABI, and example kernels that also run on host threads.

#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]
