//! The 128-bit instructions (`mov.b128` pack/unpack, `ld`/`st` `.b128`, `atom.cas.b128`,
//! `atom.exch.b128`, `ld.param.v2` of a 128-bit parameter, and the carry chains
//! `add.cc`/`addc`/`sub.cc`/`subc` of 128-bit arithmetic), kept out of the interpreter's
//! main loop: a `.b128` register is two adjacent 64-bit slots, the low half first (the decoder's
//! `reg128`), and a 128-bit access is one access of 16 bytes to the memory and the race detector.

use super::decode::{Op, Rmw, Src};
use super::exec::{Event, Thread, World};
use super::memory::{self, Loc};
use super::race::SyncOp;

impl World<'_> {
    /// The high half of a `.b128` register operand.
    fn hi(&self, th: &Thread, s: Src) -> u64 {
        match s {
            Src::Reg(r) => self.val(th, Src::Reg(r + 1)),
            _ => 0,
        }
    }

    /// Runs one of the 128-bit forms of `op` for thread `t` at `pc`: `Some(event)` to stop the
    /// run (a visible memory operation or a fault), `None` to go on.
    pub(super) fn wide(&mut self, th: &mut Thread, t: u32, pc: u32, op: &Op) -> Option<Event> {
        match op {
            Op::Pack(_, d, lo, hi) => {
                let (lo, hi) = (self.val(th, *lo), self.val(th, *hi));
                Self::set(th, *d, lo);
                Self::set(th, *d + 1, hi);
                None
            }
            Op::Unpack(_, lo, hi, q) => {
                let (l, h) = (self.val(th, *q), self.hi(th, *q));
                if let Some(r) = lo {
                    Self::set(th, *r, l);
                }
                if let Some(r) = hi {
                    Self::set(th, *r, h);
                }
                None
            }
            Op::LdParamV2(ty, d0, d1, slot) => {
                let base = th.frames.last().map_or(0, |f| f.param_base) as usize;
                let (off, size) = (base + *slot as usize, u64::from(ty.bytes));
                let params = th.params(&self.entry_params);
                let lo = memory::read(params, off, size);
                let hi = memory::read(params, off + ty.bytes as usize, size);
                Self::set(th, *d0, lo);
                Self::set(th, *d1, hi);
                None
            }
            Op::Ld(space, sem, scope, _, d, a) => {
                let addr = self.val(th, a.base).wrapping_add(a.off as u64);
                let strong = *sem != super::decode::Sem::Weak;
                let local = (th.cta, th.local.len() as u64);
                let loc = match self.access(local, t, *space, addr, 16, false, strong, *scope, pc) {
                    Ok(l) => l,
                    Err(e) => return Some(e),
                };
                let (bytes, off) = self.bytes(th, loc);
                let (lo, hi) = (memory::read(bytes, off, 8), memory::read(bytes, off + 8, 8));
                Self::set(th, *d, lo);
                Self::set(th, *d + 1, hi);
                if matches!(loc, Loc::Local(_)) {
                    return None;
                }
                if strong && let Some(race) = &mut self.race {
                    let op = SyncOp {
                        size: 16,
                        strong,
                        scope: *scope,
                    };
                    race.read_sync(Self::sync_key(th.cta, loc), t, op, sem.acquires());
                }
                // Both halves recorded: a repeat of both is spinning.
                if !th.seen(addr, lo) | !th.seen(addr + 8, hi) {
                    self.progress = true;
                }
                Some(Event::Yield)
            }
            Op::St(space, sem, scope, _, a, v) => {
                let addr = self.val(th, a.base).wrapping_add(a.off as u64);
                let value = (self.val(th, *v), self.hi(th, *v));
                let strong = *sem != super::decode::Sem::Weak;
                let local = (th.cta, th.local.len() as u64);
                let loc = match self.access(local, t, *space, addr, 16, true, strong, *scope, pc) {
                    Ok(l) => l,
                    Err(e) => return Some(e),
                };
                let (bytes, off) = self.bytes(th, loc);
                let old = (memory::read(bytes, off, 8), memory::read(bytes, off + 8, 8));
                memory::write(bytes, off, 8, value.0);
                memory::write(bytes, off + 8, 8, value.1);
                if matches!(loc, Loc::Local(_)) {
                    return None;
                }
                if let Some(race) = &mut self.race {
                    let releases = strong && sem.releases();
                    let op = SyncOp {
                        size: 16,
                        strong,
                        scope: *scope,
                    };
                    race.write_sync(Self::sync_key(th.cta, loc), t, op, releases, false);
                }
                if old != value {
                    self.progress = true;
                }
                Some(Event::Yield)
            }
            Op::Atom(space, sem, scope, op, _, d, a, b, c) => {
                let addr = self.val(th, a.base).wrapping_add(a.off as u64);
                let b = (self.val(th, *b), self.hi(th, *b));
                let c = (self.val(th, *c), self.hi(th, *c));
                let local = (th.cta, th.local.len() as u64);
                let loc = match self.access(local, t, *space, addr, 16, true, true, *scope, pc) {
                    Ok(l) => l,
                    Err(e) => return Some(e),
                };
                if let Loc::Local(_) = loc {
                    return Some(Event::Fault(format!(
                        "atomic operation on local memory at {addr:#x} (atom/red are defined on global and shared memory only)"
                    )));
                }
                let (bytes, off) = self.bytes(th, loc);
                let old = (memory::read(bytes, off, 8), memory::read(bytes, off + 8, 8));
                let new = match op {
                    Rmw::Exch => b,
                    Rmw::Cas if old == b => c,
                    // The decoder admits only `cas` and `exch` at 128 bits.
                    _ => old,
                };
                memory::write(bytes, off, 8, new.0);
                memory::write(bytes, off + 8, 8, new.1);
                if let Some(r) = d {
                    Self::set(th, *r, old.0);
                    Self::set(th, *r + 1, old.1);
                }
                if let Some(race) = &mut self.race {
                    let key = Self::sync_key(th.cta, loc);
                    let op = SyncOp {
                        size: 16,
                        strong: true,
                        scope: *scope,
                    };
                    race.read_sync(key, t, op, sem.acquires());
                    race.write_sync(key, t, op, sem.releases(), true);
                }
                if new != old || !th.seen(addr, old.0) | !th.seen(addr + 8, old.1) {
                    self.progress = true;
                }
                Some(Event::Yield)
            }
            Op::AddC(sub, carry_in, carry_out, ty, d, a, b) => {
                let (x, y) = (
                    u128::from(self.val(th, *a) & ty.mask()),
                    u128::from(self.val(th, *b) & ty.mask()),
                );
                let c = u128::from(*carry_in && th.carry);
                let bits = ty.bits();
                let (v, flag) = if *sub {
                    // Borrow out: the subtrahend (with the borrow in) exceeds the minuend.
                    (x.wrapping_sub(y).wrapping_sub(c), y + c > x)
                } else {
                    let sum = x + y + c;
                    (sum, sum >> bits != 0)
                };
                Self::set(th, *d, (v as u64) & ty.mask());
                if *carry_out {
                    th.carry = flag;
                }
                None
            }
            _ => unreachable!("not a 128-bit operation: {op:?}"),
        }
    }
}
