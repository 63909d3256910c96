//! A litmus thread placed on the host (`Pn@host`) as a host thread of the simulator: its code
//! interpreted one memory access per scheduling step, its strong accesses at system scope (as
//! the test's host thread's are), its final registers handed back when it ends.

use ptx_litmus::program::{Instr, Operand, Sem, Thread};
use ptx_sim::{HostStatus, HostThread};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// The final registers of a host thread, once it has ended.
pub type Finals = Arc<Mutex<Option<BTreeMap<String, i64>>>>;

/// A host thread running `th`'s code; `at` gives each location's launch buffer and offset, and
/// the registers start at `init`. The final registers land in the returned cell.
pub fn thread(
    th: &Thread,
    init: &[(String, i64)],
    at: HashMap<String, (usize, u64)>,
) -> (HostThread, Finals) {
    let code: Vec<Instr> = th.code.iter().map(|l| l.instr.clone()).collect();
    let labels: HashMap<String, usize> = th
        .labels()
        .into_iter()
        .map(|(n, k)| (n.to_string(), k))
        .collect();
    let mut regs: BTreeMap<String, i64> = init.iter().cloned().collect();
    let finals: Finals = Arc::default();
    let done = finals.clone();
    let mut pc = 0;
    let step = move |ctx: &mut ptx_sim::HostCtx| {
        let val = |regs: &BTreeMap<String, i64>, o: &Operand| match o {
            Operand::Imm(v) => *v,
            Operand::Reg(r) => regs.get(r).copied().unwrap_or(0),
        };
        while pc < code.len() {
            let here = pc;
            pc += 1;
            match &code[here] {
                Instr::Label(_) => {}
                Instr::Alu { op, dst, a, b } => {
                    let v = op.apply(val(&regs, a), val(&regs, b));
                    regs.insert(dst.clone(), i64::from(v as i32));
                }
                Instr::Branch { cond, target } => {
                    let taken = cond
                        .as_ref()
                        .is_none_or(|(c, a, b)| c.holds(val(&regs, a), val(&regs, b)));
                    if taken {
                        pc = labels[target];
                    }
                }
                Instr::Ld { sem, dst, loc, .. } => {
                    let (buffer, offset) = at[loc];
                    let addr = ctx.buffer(buffer) + offset;
                    let v = match sem {
                        Sem::Weak => ctx.read_u32(addr),
                        Sem::Relaxed => ctx.load_u32(addr, Ordering::Relaxed),
                        _ => ctx.load_u32(addr, Ordering::Acquire),
                    };
                    regs.insert(dst.clone(), i64::from(v as i32));
                    return HostStatus::Continue;
                }
                Instr::St {
                    sem, loc, val: v, ..
                } => {
                    let (buffer, offset) = at[loc];
                    let addr = ctx.buffer(buffer) + offset;
                    let v = val(&regs, v) as u32;
                    match sem {
                        Sem::Weak => ctx.write_u32(addr, v),
                        Sem::Relaxed => ctx.store_u32(addr, v, Ordering::Relaxed),
                        _ => ctx.store_u32(addr, v, Ordering::Release),
                    }
                    return HostStatus::Continue;
                }
                other => unreachable!("refused by the translation: {other:?}"),
            }
        }
        *done.lock().unwrap() = Some(regs.clone());
        HostStatus::Done
    };
    (HostThread::new(step), finals)
}
