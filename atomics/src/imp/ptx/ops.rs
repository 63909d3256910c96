//! The `Raw*` traits for every value type, in terms of the [`native`] and [`byte`] operations and
//! the single instructions of [`asm`](super::asm).

use super::byte::Bitwise;
use super::*;

/// `atom.<sem>.S.<op>` for `order`'s row of the table, on `$value` converted to its word.
macro_rules! atom {
    ($self:ident, $S:ident, $order:expr, $t:ty, $op:ident($value:expr)) => {{
        let p = $self.as_ptr().cast();
        let value = <$t as Bits>::to_w($value);
        // SAFETY: `p` is the storage of the live atomic `$self`.
        let old = mapped::<$S, _>(table::rmw($order), |sem| unsafe {
            $op::<$S>(p, value, sem)
        });
        <$t as Bits>::from_w(old)
    }};
}

/// `red.<sem>.S.<op>` for `order`'s row of the table.
macro_rules! red {
    ($self:ident, $S:ident, $order:expr, $t:ty, $op:ident($value:expr)) => {{
        let p = $self.as_ptr().cast();
        let value = <$t as Bits>::to_w($value);
        // SAFETY: `p` is the storage of the live atomic `$self`.
        mapped::<$S, _>(table::reduction($order), |sem| unsafe {
            $op::<$S>(p, value, sem)
        })
    }};
}

/// A compare-and-swap loop storing `$f(previous)`; `$via` is `native` or `byte`.
macro_rules! update {
    ($self:ident, $S:ident, $row:expr, $t:ty, $via:ident, |$x:ident| $f:expr) => {{
        // SAFETY: `as_ptr` is the storage of the live atomic `$self`.
        unsafe { $via::update::<$S, $t>($self.as_ptr().cast(), $row, |$x: $t| $f) }
    }};
}

/// `load`, `store`, `swap` and compare-exchange. `word`: 32/64-bit, with `atom.exch`; `half`:
/// 16-bit, swap by `atom.cas.b16` loop; `byte`: 8-bit, through the containing word.
macro_rules! raw_atomic {
    (@impl [$($g:tt)*] $t:ty => $storage:ty, $via:ident, |$this:ident, $S:ident, $v:ident, $o:ident| $swap:expr) => {
        impl<$($g)*> RawAtomic<$t> for $storage {
            #[inline(always)]
            fn load<S: Scope>(&self, order: Ordering) -> $t {
                // SAFETY: `as_ptr` is the storage of the live atomic `self`.
                unsafe { $via::load::<S, $t>(self.as_ptr().cast(), order) }
            }
            #[inline(always)]
            fn store<S: Scope>(&self, value: $t, order: Ordering) {
                raw_atomic!(@store $via, self, S, value, order, $t)
            }
            #[inline(always)]
            fn swap<$S: Scope>(&self, $v: $t, $o: Ordering) -> $t {
                let $this = self;
                $swap
            }
            #[inline(always)]
            fn compare_exchange<S: Scope>(&self, current: $t, new: $t, success: Ordering, failure: Ordering) -> Result<$t, $t> {
                // SAFETY: `as_ptr` is the storage of the live atomic `self`.
                unsafe { $via::compare_exchange::<S, $t>(self.as_ptr().cast(), current, new, success, failure) }
            }
            #[inline(always)]
            fn compare_exchange_weak<S: Scope>(&self, current: $t, new: $t, success: Ordering, failure: Ordering) -> Result<$t, $t> {
                <Self as RawAtomic<$t>>::compare_exchange::<S>(self, current, new, success, failure)
            }
        }
    };
    (@store native, $self:ident, $S:ident, $value:ident, $order:ident, $t:ty) => {
        // SAFETY: `as_ptr` is the storage of the live atomic.
        unsafe { native::store::<$S, $t>($self.as_ptr().cast(), $value, $order) }
    };
    (@store byte, $self:ident, $S:ident, $value:ident, $order:ident, $t:ty) => {{
        // A byte store is a compare-and-swap loop with the store's row of the table.
        update!($self, $S, table::store($order), $t, byte, |_x| $value);
    }};
    (word $exch:ident: $([$($g:tt)*] $t:ty => $storage:ty),* $(,)?) => {$(
        raw_atomic!(@impl [$($g)*] $t => $storage, native, |this, S, v, o| atom!(this, S, o, $t, $exch(v)));
    )*};
    (half: $($t:ty => $storage:ty),*) => {$(
        raw_atomic!(@impl [] $t => $storage, native, |this, S, v, o| update!(this, S, table::rmw(o), $t, native, |_x| v));
    )*};
    (byte: $($t:ty => $storage:ty),*) => {$(
        raw_atomic!(@impl [] $t => $storage, byte, |this, S, v, o| update!(this, S, table::rmw(o), $t, byte, |_x| v));
    )*};
}

raw_atomic!(word atom_exch_b32: [] u32 => storage::U32, [] i32 => storage::I32, [] f32 => storage::F32);
raw_atomic!(word atom_exch_b64:
    [] u64 => storage::U64, [] i64 => storage::I64, [] usize => storage::Usize,
    [] isize => storage::Isize, [] f64 => storage::F64, [U] *mut U => storage::Ptr<U>,
);
raw_atomic!(word atom_exch_b128: [] u128 => storage::U128, [] i128 => storage::I128);
raw_atomic!(half: u16 => storage::U16, i16 => storage::I16, half::f16 => storage::F16, half::bf16 => storage::Bf16);
raw_atomic!(byte: u8 => storage::U8, i8 => storage::I8, bool => storage::Bool);

/// Integer read-modify-writes of 32- and 64-bit types: one `atom` each, `nand` a loop; and their
/// reductions, one `red` each.
macro_rules! raw_int_word {
    ($($t:ty => $storage:ty: $add:ident $and:ident $or:ident $xor:ident $min:ident $max:ident,
        red $radd:ident $rand:ident $ror:ident $rxor:ident $rmin:ident $rmax:ident;)*) => {$(
        impl RawInt<$t> for $storage {
            #[inline(always)]
            fn fetch_add<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $add(v)) }
            #[inline(always)]
            fn fetch_sub<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $add(v.wrapping_neg())) }
            #[inline(always)]
            fn fetch_and<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $and(v)) }
            #[inline(always)]
            fn fetch_nand<S: Scope>(&self, v: $t, o: Ordering) -> $t { update!(self, S, table::rmw(o), $t, native, |x| !(x & v)) }
            #[inline(always)]
            fn fetch_or<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $or(v)) }
            #[inline(always)]
            fn fetch_xor<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $xor(v)) }
            #[inline(always)]
            fn fetch_min<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $min(v)) }
            #[inline(always)]
            fn fetch_max<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $max(v)) }
        }
        impl RawReduce<$t> for $storage {
            #[inline(always)]
            fn reduce_add<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $radd(v)) }
            #[inline(always)]
            fn reduce_sub<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $radd(v.wrapping_neg())) }
        }
        impl RawIntReduce<$t> for $storage {
            #[inline(always)]
            fn reduce_and<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $rand(v)) }
            #[inline(always)]
            fn reduce_or<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $ror(v)) }
            #[inline(always)]
            fn reduce_xor<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $rxor(v)) }
            #[inline(always)]
            fn reduce_min<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $rmin(v)) }
            #[inline(always)]
            fn reduce_max<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $rmax(v)) }
        }
    )*};
}

raw_int_word! {
    u32 => storage::U32: atom_add_u32 atom_and_b32 atom_or_b32 atom_xor_b32 atom_min_u32 atom_max_u32,
        red red_add_u32 red_and_b32 red_or_b32 red_xor_b32 red_min_u32 red_max_u32;
    i32 => storage::I32: atom_add_u32 atom_and_b32 atom_or_b32 atom_xor_b32 atom_min_s32 atom_max_s32,
        red red_add_u32 red_and_b32 red_or_b32 red_xor_b32 red_min_s32 red_max_s32;
    u64 => storage::U64: atom_add_u64 atom_and_b64 atom_or_b64 atom_xor_b64 atom_min_u64 atom_max_u64,
        red red_add_u64 red_and_b64 red_or_b64 red_xor_b64 red_min_u64 red_max_u64;
    i64 => storage::I64: atom_add_u64 atom_and_b64 atom_or_b64 atom_xor_b64 atom_min_s64 atom_max_s64,
        red red_add_u64 red_and_b64 red_or_b64 red_xor_b64 red_min_s64 red_max_s64;
    usize => storage::Usize: atom_add_u64 atom_and_b64 atom_or_b64 atom_xor_b64 atom_min_u64 atom_max_u64,
        red red_add_u64 red_and_b64 red_or_b64 red_xor_b64 red_min_u64 red_max_u64;
    isize => storage::Isize: atom_add_u64 atom_and_b64 atom_or_b64 atom_xor_b64 atom_min_s64 atom_max_s64,
        red red_add_u64 red_and_b64 red_or_b64 red_xor_b64 red_min_s64 red_max_s64;
}

/// Integer read-modify-writes of 8-, 16- and 128-bit types: compare-and-swap loops at the location's
/// own access size, except 8-bit `and`/`or`/`xor`, which are one masked `atom` on the word.
macro_rules! raw_int_small {
    ($($t:ty => $storage:ty, $via:ident, $and:tt $or:tt $xor:tt;)*) => {$(
        impl RawInt<$t> for $storage {
            #[inline(always)]
            fn fetch_add<S: Scope>(&self, v: $t, o: Ordering) -> $t { update!(self, S, table::rmw(o), $t, $via, |x| x.wrapping_add(v)) }
            #[inline(always)]
            fn fetch_sub<S: Scope>(&self, v: $t, o: Ordering) -> $t { update!(self, S, table::rmw(o), $t, $via, |x| x.wrapping_sub(v)) }
            #[inline(always)]
            fn fetch_and<S: Scope>(&self, v: $t, o: Ordering) -> $t { raw_int_small!(@bitwise self, S, o, $t, $via, $and, v, |x| x & v) }
            #[inline(always)]
            fn fetch_nand<S: Scope>(&self, v: $t, o: Ordering) -> $t { update!(self, S, table::rmw(o), $t, $via, |x| !(x & v)) }
            #[inline(always)]
            fn fetch_or<S: Scope>(&self, v: $t, o: Ordering) -> $t { raw_int_small!(@bitwise self, S, o, $t, $via, $or, v, |x| x | v) }
            #[inline(always)]
            fn fetch_xor<S: Scope>(&self, v: $t, o: Ordering) -> $t { raw_int_small!(@bitwise self, S, o, $t, $via, $xor, v, |x| x ^ v) }
            #[inline(always)]
            fn fetch_min<S: Scope>(&self, v: $t, o: Ordering) -> $t { update!(self, S, table::rmw(o), $t, $via, |x| x.min(v)) }
            #[inline(always)]
            fn fetch_max<S: Scope>(&self, v: $t, o: Ordering) -> $t { update!(self, S, table::rmw(o), $t, $via, |x| x.max(v)) }
        }
    )*};
    // 16-bit: the compare-and-swap loop computing `$f`.
    (@bitwise $self:ident, $S:ident, $o:ident, $t:ty, native, -, $v:ident, |$x:ident| $f:expr) => {
        update!($self, $S, table::rmw($o), $t, native, |$x| $f)
    };
    // 8-bit: one masked `atom.<op>.b32` on the word, which computes `$f` on the byte.
    (@bitwise $self:ident, $S:ident, $o:ident, $t:ty, byte, $op:ident, $v:ident, |$x:ident| $f:expr) => {
        // SAFETY: `as_ptr` is the storage of the live atomic.
        unsafe { byte::bitwise::<$S, $t>($self.as_ptr().cast(), $v, $o, Bitwise::$op) }
    };
}

raw_int_small! {
    // 128 bits: PTX has no 128-bit arithmetic or bitwise `atom`; `atom.cas.b128` loops.
    u128 => storage::U128, native, - - -;
    i128 => storage::I128, native, - - -;
    u16 => storage::U16, native, - - -;
    i16 => storage::I16, native, - - -;
    u8 => storage::U8, byte, And Or Xor;
    i8 => storage::I8, byte, And Or Xor;
}

impl RawBool for storage::Bool {
    #[inline(always)]
    fn fetch_and<S: Scope>(&self, v: bool, o: Ordering) -> bool {
        // SAFETY: `as_ptr` is the storage of the live atomic.
        unsafe { byte::bitwise::<S, bool>(self.as_ptr().cast(), v, o, Bitwise::And) }
    }
    #[inline(always)]
    fn fetch_nand<S: Scope>(&self, v: bool, o: Ordering) -> bool {
        update!(self, S, table::rmw(o), bool, byte, |x| !(x && v))
    }
    #[inline(always)]
    fn fetch_or<S: Scope>(&self, v: bool, o: Ordering) -> bool {
        // SAFETY: as above.
        unsafe { byte::bitwise::<S, bool>(self.as_ptr().cast(), v, o, Bitwise::Or) }
    }
    #[inline(always)]
    fn fetch_xor<S: Scope>(&self, v: bool, o: Ordering) -> bool {
        // SAFETY: as above.
        unsafe { byte::bitwise::<S, bool>(self.as_ptr().cast(), v, o, Bitwise::Xor) }
    }
}

/// Float read-modify-writes: `atom.add.f32`/`.f64` (subtraction adds the negation, which is
/// exact); min/max, which must follow `f32::min`/`max` on NaN, as compare-and-swap loops.
macro_rules! raw_float {
    ($($t:ty => $storage:ty: $add:ident, $red_add:ident;)*) => {$(
        impl RawFloat<$t> for $storage {
            #[inline(always)]
            fn fetch_add<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $add(v)) }
            #[inline(always)]
            fn fetch_sub<S: Scope>(&self, v: $t, o: Ordering) -> $t { atom!(self, S, o, $t, $add(-v)) }
            #[inline(always)]
            fn fetch_min<S: Scope>(&self, v: $t, o: Ordering) -> $t { update!(self, S, table::rmw(o), $t, native, |x| x.min(v)) }
            #[inline(always)]
            fn fetch_max<S: Scope>(&self, v: $t, o: Ordering) -> $t { update!(self, S, table::rmw(o), $t, native, |x| x.max(v)) }
        }
        impl RawReduce<$t> for $storage {
            #[inline(always)]
            fn reduce_add<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $red_add(v)) }
            #[inline(always)]
            fn reduce_sub<S: Scope>(&self, v: $t, o: Ordering) { red!(self, S, o, $t, $red_add(-v)) }
        }
    )*};
}

raw_float! {
    f32 => storage::F32: atom_add_f32, red_add_f32;
    f64 => storage::F64: atom_add_f64, red_add_f64;
}

/// Half-precision read-modify-writes: `atom.add.noftz.f16` (sm_70) and `atom.add.noftz.bf16`
/// (sm_90; before it, a compare-and-swap loop on the 16 bits); subtraction adds the negation,
/// which is exact; min/max follow `f32::min`/`max` as compare-and-swap loops, as for `f32`.
///
/// The values computed inside a loop ([`half_bits`]) are branch-free bit arithmetic, so that
/// each loop is the plain `ld.relaxed`/`atom.cas` loop of the ABI checks (the `half` crate's
/// software conversions branch on NaN and subnormals).
macro_rules! raw_half {
    ($($t:ty => $storage:ty: $add:ident, $red_add:ident, $exp:literal, native_add: $native:meta;)*) => {$(
        impl RawFloat<$t> for $storage {
            #[inline(always)]
            fn fetch_add<S: Scope>(&self, v: $t, o: Ordering) -> $t {
                #[cfg($native)]
                return atom!(self, S, o, $t, $add(v));
                #[cfg(not($native))]
                return update!(self, S, table::rmw(o), $t, native, |x| <$t>::from_bits(half_bits::bf16_add(x.to_bits(), v.to_bits())));
            }
            #[inline(always)]
            fn fetch_sub<S: Scope>(&self, v: $t, o: Ordering) -> $t { <Self as RawFloat<$t>>::fetch_add::<S>(self, -v, o) }
            #[inline(always)]
            fn fetch_min<S: Scope>(&self, v: $t, o: Ordering) -> $t {
                update!(self, S, table::rmw(o), $t, native, |x| <$t>::from_bits(half_bits::min_max(x.to_bits(), v.to_bits(), $exp, true)))
            }
            #[inline(always)]
            fn fetch_max<S: Scope>(&self, v: $t, o: Ordering) -> $t {
                update!(self, S, table::rmw(o), $t, native, |x| <$t>::from_bits(half_bits::min_max(x.to_bits(), v.to_bits(), $exp, false)))
            }
        }
        impl RawReduce<$t> for $storage {
            #[inline(always)]
            fn reduce_add<S: Scope>(&self, v: $t, o: Ordering) {
                #[cfg($native)]
                red!(self, S, o, $t, $red_add(v));
                #[cfg(not($native))]
                update!(self, S, table::rmw(o), $t, native, |x| <$t>::from_bits(half_bits::bf16_add(x.to_bits(), v.to_bits())));
            }
            #[inline(always)]
            fn reduce_sub<S: Scope>(&self, v: $t, o: Ordering) { <Self as RawReduce<$t>>::reduce_add::<S>(self, -v, o) }
        }
    )*};
}

raw_half! {
    half::f16 => storage::F16: atom_add_f16, red_add_f16, 0x7c00, native_add: all();
    half::bf16 => storage::Bf16: atom_add_bf16, red_add_bf16, 0x7f80, native_add: target_feature = "sm_90";
}

impl<U> RawPtr<U> for storage::Ptr<U> {
    #[inline(always)]
    fn fetch_byte_add<S: Scope>(&self, bytes: usize, o: Ordering) -> *mut U {
        let old = atom!(self, S, o, u64, atom_add_u64(bytes as u64));
        <*mut U as Bits>::from_w(old)
    }
    #[inline(always)]
    fn fetch_byte_sub<S: Scope>(&self, bytes: usize, o: Ordering) -> *mut U {
        let old = atom!(self, S, o, u64, atom_add_u64((bytes as u64).wrapping_neg()));
        <*mut U as Bits>::from_w(old)
    }
    #[inline(always)]
    fn fetch_addr_and<S: Scope>(&self, value: usize, o: Ordering) -> *mut U {
        <*mut U as Bits>::from_w(atom!(self, S, o, u64, atom_and_b64(value as u64)))
    }
    #[inline(always)]
    fn fetch_addr_or<S: Scope>(&self, value: usize, o: Ordering) -> *mut U {
        <*mut U as Bits>::from_w(atom!(self, S, o, u64, atom_or_b64(value as u64)))
    }
    #[inline(always)]
    fn fetch_addr_xor<S: Scope>(&self, value: usize, o: Ordering) -> *mut U {
        <*mut U as Bits>::from_w(atom!(self, S, o, u64, atom_xor_b64(value as u64)))
    }
}
