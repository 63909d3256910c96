//! Calls and returns (`.param` calling convention, a frame of registers, parameters and
//! `.local` memory per call) and CUDA's `printf`, the toolkit's `vprintf(format, args)`: the
//! format string in global memory, the arguments packed in the caller's local memory, each at
//! its natural alignment (as nvcc lays them out).

use super::decode::Space;
use super::decode::{Callee, Kind, ParamVecInst, Src};
use super::exec::{Event, Frame, Thread, World};
use super::memory::{self, Loc};

impl World<'_> {
    /// `ret`: back to the caller with the return values, or the end of the thread.
    #[inline]
    pub(super) fn ret(&mut self, th: &mut Thread) -> Option<Event> {
        let prog = self.prog;
        // No call in progress: `ret` of the kernel ends the thread.
        let Some(f) = th.frames.pop() else {
            return Some(Event::Exited);
        };
        // The caller's frame: another call's, or the kernel's (everything from offset 0).
        let (caller_regs, caller_params) = th
            .frames
            .last()
            .map_or((0, 0), |c| (c.reg_base, c.param_base));
        let info = &prog.funcs[f.func as usize];
        // A call made the thread's own parameter memory: `own_params` holds the frame.
        let params = &mut th.own_params;
        for (k, &to) in f.ret_to.iter().enumerate() {
            if let Some(&(slot, size)) = info.rets.get(k) {
                let from = f.param_base as usize + slot as usize;
                let dst = caller_params as usize + to as usize;
                params.copy_within(from..from + size as usize, dst);
            }
        }
        th.regs.truncate(f.reg_base as usize);
        params.truncate(f.param_base as usize);
        th.local.truncate(f.local_base as usize);
        th.pc = f.ret_pc;
        th.base = caller_regs;
        None
    }

    /// `call`: a new frame for the callee with the arguments copied into its parameters.
    pub(super) fn call(
        &mut self,
        th: &mut Thread,
        pc: u32,
        callee: Callee,
        args: &[u32],
        rets: &[u32],
    ) -> Option<Event> {
        let prog = self.prog;
        let func = match callee {
            Callee::Direct(f) => f,
            Callee::Vprintf => return self.vprintf(th, args, rets),
            Callee::AssertFail => return Some(self.assert_fail(th, args)),
            Callee::Malloc => return Some(self.malloc(th, args, rets)),
            Callee::Free => return Some(self.free(th, args)),
            Callee::Indirect(s) => {
                let a = self.val(th, s);
                match memory::func_at(a).and_then(|m| prog.by_module_index.get(&m)) {
                    Some(&f) => f,
                    None => {
                        return Some(Event::Fault(format!(
                            "indirect call to {a:#x}, which is not the address of a device function"
                        )));
                    }
                }
            }
        };
        // 256 frames with the kernel's own (implicit: not in `frames`).
        if th.frames.len() >= 256 {
            return Some(Event::Fault("call depth beyond 256 frames".into()));
        }
        let info = &prog.funcs[func as usize];
        let caller_params = th.frames.last().map_or(0, |f| f.param_base) as usize;
        // The callee's parameters extend the thread's own copy of the caller's.
        th.params_mut(&self.entry_params);
        let frame = Frame {
            func,
            reg_base: th.regs.len() as u32,
            param_base: th.own_params.len().next_multiple_of(8) as u32,
            local_base: (th.local.len() as u64).next_multiple_of(16),
            ret_pc: pc + 1,
            ret_to: rets.to_vec(),
        };
        th.regs.resize(th.regs.len() + info.nregs as usize, 0);
        th.own_params
            .resize(frame.param_base as usize + info.param_size as usize, 0);
        th.local
            .resize((frame.local_base + info.local_size) as usize, 0);
        for (k, &from) in args.iter().enumerate() {
            if let Some(&(slot, size)) = info.params.get(k) {
                let src = caller_params + from as usize;
                let dst = frame.param_base as usize + slot as usize;
                th.own_params.copy_within(src..src + size as usize, dst);
            }
        }
        th.pc = info.entry;
        th.base = frame.reg_base;
        th.frames.push(frame);
        None
    }

    /// `st.param.v2/.v4` or `ld.param.v4`: the elements at consecutive offsets of the frame's
    /// parameter area.
    #[cold]
    pub(super) fn param_vector(&mut self, th: &mut Thread, v: &ParamVecInst) {
        let base = th.frames.last().map_or(0, |f| f.param_base) as usize + v.slot as usize;
        let size = u64::from(v.ty.bytes);
        for (k, reg) in v.regs.iter().enumerate() {
            let at = base + k * v.ty.bytes as usize;
            if v.store {
                let value = reg.map_or(0, |s| self.val(th, s));
                memory::write(th.params_mut(&self.entry_params), at, size, value);
            } else if let Some(Src::Reg(d)) = reg {
                let raw = memory::read(th.params(&self.entry_params), at, size);
                let value = if v.ty.kind == Kind::S {
                    super::values::sext(raw, v.ty.bytes) as u64
                } else {
                    raw
                };
                Self::set(th, *d, value);
            }
        }
    }

    /// The NUL-terminated string at generic or global address `addr`.
    fn c_string(&self, addr: u64) -> Result<String, String> {
        let Loc::Global(r, o) = self.mem.resolve(Space::Generic, addr, 1, 0, 0)? else {
            return Err(format!("string at {addr:#x}, which is not global memory"));
        };
        let data = &self.mem.regions[r as usize].data[o as usize..];
        let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
        Ok(String::from_utf8_lossy(&data[..end]).into_owned())
    }

    /// `__assertfail(message, file, line, function, char size)`: a fault naming the assertion.
    fn assert_fail(&self, th: &Thread, args: &[u32]) -> Event {
        let text = |k: usize| {
            self.c_string(call_arg(th, &self.entry_params, args, k, 8))
                .unwrap_or_else(|_| "?".into())
        };
        Event::Fault(format!(
            "assertion `{}` failed ({}:{}, in {})",
            text(0),
            text(1),
            call_arg(th, &self.entry_params, args, 2, 4),
            text(3)
        ))
    }

    /// `malloc(size)`: a new global region of its own (see [`memory::Memory::allocate`]); its
    /// address is returned.
    fn malloc(&mut self, th: &mut Thread, args: &[u32], rets: &[u32]) -> Event {
        let size = call_arg(th, &self.entry_params, args, 0, 8);
        if size > 1 << 30 {
            return Event::Fault(format!(
                "malloc({size}): beyond the simulator's 1 GiB a block"
            ));
        }
        let addr = self.mem.allocate(size as usize);
        set_return(th, &self.entry_params, rets, 8, addr);
        Event::Yield
    }

    /// `free(ptr)`: the block is gone, so a later access through any pointer into it faults;
    /// `free(NULL)` does nothing. A pointer `malloc` did not return, or a second `free`, faults.
    fn free(&mut self, th: &mut Thread, args: &[u32]) -> Event {
        let ptr = call_arg(th, &self.entry_params, args, 0, 8);
        if ptr == 0 {
            return Event::Yield;
        }
        match self.mem.free(ptr) {
            Ok(()) => Event::Yield,
            Err(why) => Event::Fault(why),
        }
    }

    /// `vprintf(format, args)`: formats and records a line for the thread; returns the number
    /// of arguments.
    fn vprintf(&mut self, th: &mut Thread, args: &[u32], rets: &[u32]) -> Option<Event> {
        let (format, packed) = (
            call_arg(th, &self.entry_params, args, 0, 8),
            call_arg(th, &self.entry_params, args, 1, 8),
        );
        let format = match self.c_string(format) {
            Ok(f) => f,
            Err(e) => return Some(Event::Fault(format!("printf format: {e}"))),
        };
        // The arguments: a generic pointer into the caller's local memory (null without any).
        let local_at = memory::classify(packed)
            .and_then(|(space, off)| (space == Space::Local).then_some(off as usize));
        let mut cursor = 0usize;
        let mut fault = None;
        let mut next = |size: usize| -> u64 {
            cursor = cursor.next_multiple_of(size);
            let at = local_at.map(|l| l + cursor);
            cursor += size;
            match at {
                Some(at) if at + size <= th.local.len() => memory::read(&th.local, at, size as u64),
                _ => {
                    fault.get_or_insert("printf arguments beyond the caller's local memory");
                    0
                }
            }
        };
        let mut bad_string = None;
        let (text, count) = super::printf::format(&format, &mut next, &mut |p| {
            self.c_string(p).unwrap_or_else(|e| {
                bad_string.get_or_insert(e);
                String::new()
            })
        });
        if let Some(f) = fault {
            return Some(Event::Fault(f.into()));
        }
        if let Some(e) = bad_string {
            return Some(Event::Fault(format!("printf %s argument: {e}")));
        }
        let name = super::report::thread_name(th.ctaid, th.tid, self.grid, self.block);
        self.printed
            .push(format!("{name} {}", text.trim_end_matches('\n')));
        set_return(th, &self.entry_params, rets, 4, count as u64);
        Some(Event::Yield)
    }
}

/// Argument `k` (`size` bytes) of a call of one of the toolkit's functions, from the calling
/// frame's parameters; 0 when the call passes fewer.
fn call_arg(th: &Thread, entry: &[u8], args: &[u32], k: usize, size: u64) -> u64 {
    let base = th.frames.last().map_or(0, |f| f.param_base) as usize;
    args.get(k).map_or(0, |&slot| {
        memory::read(th.params(entry), base + slot as usize, size)
    })
}

/// Writes the return value (`size` bytes) of a call of one of the toolkit's functions into the
/// calling frame's parameters, when the call takes one.
fn set_return(th: &mut Thread, entry: &[u8], rets: &[u32], size: u64, v: u64) {
    let base = th.frames.last().map_or(0, |f| f.param_base) as usize;
    if let Some(&slot) = rets.first() {
        memory::write(th.params_mut(entry), base + slot as usize, size, v);
    }
}
