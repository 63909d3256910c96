//! The storage of the backends that use `core::sync::atomic`'s types for their layout: the host
//! backend (which also uses their operations) and the PTX backend (which uses only `as_ptr`).

use core::sync::atomic as a;
pub type Bool = a::AtomicBool;
pub type U8 = a::AtomicU8;
pub type I8 = a::AtomicI8;
pub type U16 = a::AtomicU16;
pub type I16 = a::AtomicI16;
pub type U32 = a::AtomicU32;
pub type I32 = a::AtomicI32;
pub type U64 = a::AtomicU64;
pub type I64 = a::AtomicI64;
pub type Usize = a::AtomicUsize;
pub type Isize = a::AtomicIsize;
pub type F32 = a::AtomicU32;
pub type F64 = a::AtomicU64;
pub type F16 = a::AtomicU16;
pub type Bf16 = a::AtomicU16;
pub type Ptr<U> = a::AtomicPtr<U>;
