//! Vector accesses (`ld`/`st` `.v2`/`.v4`: one scalar access per element, in one step, as the
//! memory model has them, PTX ISA 8.2.4) and the read-only path `ld.global.nc`, which the
//! memory model does not cover (8.1): a location it reads must not be written during the
//! kernel, so the race detector checks every such read against every write of the launch.

use super::decode::{Addr, Kind, Space, Src, Ty, VecInst};
use super::exec::{Event, Thread, World};
use super::memory::{self, Loc};
use super::race::SyncOp;
use super::values::sext;

impl World<'_> {
    /// Runs a vector access: `Some(event)` stops the run.
    #[cold]
    pub(super) fn vector(
        &mut self,
        th: &mut Thread,
        t: u32,
        pc: u32,
        v: &VecInst,
    ) -> Option<Event> {
        let size = u64::from(v.ty.bytes);
        let addr = self.val(th, v.addr.base).wrapping_add(v.addr.off as u64);
        let whole = size * v.regs.len() as u64;
        if !addr.is_multiple_of(whole) {
            return Some(Event::Fault(format!(
                "misaligned {whole}-byte vector access at {addr:#x}"
            )));
        }
        let strong = v.sem.strong(self.volatile_plain);
        let mut local = false;
        for (k, reg) in v.regs.iter().enumerate() {
            let at = addr + k as u64 * size;
            let loc = if v.nc {
                self.read_only(th, t, pc, at, size)
            } else {
                self.access(
                    (th.cta, th.local.len() as u64),
                    t,
                    v.space,
                    at,
                    size,
                    v.store,
                    strong,
                    v.scope,
                    pc,
                )
            };
            let loc = match loc {
                Ok(l) => l,
                Err(e) => return Some(e),
            };
            local = matches!(loc, Loc::Local(_));
            let value = if v.store {
                reg.map_or(0, |s| self.val(th, s))
            } else {
                0
            };
            let (bytes, off) = self.bytes(th, loc);
            if v.store {
                let old = memory::read(bytes, off, size);
                memory::write(bytes, off, size, value);
                if old != value & v.ty.mask() {
                    self.progress = true;
                }
                if !local && let Some(race) = &mut self.race {
                    let key = Self::sync_key(th.cta, loc);
                    let op = SyncOp {
                        size: size as u8,
                        strong,
                        scope: v.scope,
                    };
                    race.write_sync(key, t, op, strong && v.sem.releases(), false);
                }
            } else {
                let raw = memory::read(bytes, off, size);
                if let Some(Src::Reg(d)) = reg {
                    Self::set(th, *d, load_value(v.ty, raw));
                }
                if !local {
                    if strong && let Some(race) = &mut self.race {
                        let key = Self::sync_key(th.cta, loc);
                        let op = SyncOp {
                            size: size as u8,
                            strong,
                            scope: v.scope,
                        };
                        race.read_sync(key, t, op, v.sem.acquires());
                    }
                    if !th.seen(at, raw) {
                        self.progress = true;
                    }
                }
            }
        }
        (!local).then_some(Event::Yield)
    }

    /// `ld.global.nc`: a scalar read through the read-only path.
    pub(super) fn ld_nc(
        &mut self,
        th: &mut Thread,
        t: u32,
        pc: u32,
        ty: Ty,
        d: u32,
        a: &Addr,
    ) -> Event {
        let addr = self.val(th, a.base).wrapping_add(a.off as u64);
        let size = u64::from(ty.bytes);
        let loc = match self.read_only(th, t, pc, addr, size) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let (bytes, off) = self.bytes(th, loc);
        let raw = memory::read(bytes, off, size);
        Self::set(th, d, load_value(ty, raw));
        if !th.seen(addr, raw) {
            self.progress = true;
        }
        Event::Yield
    }

    /// Resolves a read-only-path read and checks it against the launch's writes.
    fn read_only(
        &mut self,
        th: &Thread,
        t: u32,
        pc: u32,
        addr: u64,
        size: u64,
    ) -> Result<Loc, Event> {
        let loc = self
            .mem
            .resolve(Space::Global, addr, size, th.cta, 0)
            .map_err(Event::Fault)?;
        if let (Some(race), Loc::Global(r, off)) = (&mut self.race, loc) {
            let mask = (((1u32 << size) - 1) << (off % 8)) as u8;
            if let Some(hit) = race.read_only(u64::from(r), off / 8, mask, t, pc) {
                self.race_hit.get_or_insert((hit, addr));
            }
        }
        Ok(loc)
    }
}

/// A loaded value at type `ty` (sign-extended for signed types).
fn load_value(ty: Ty, raw: u64) -> u64 {
    if ty.kind == Kind::S {
        sext(raw, ty.bytes) as u64
    } else {
        raw
    }
}
