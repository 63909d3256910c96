//! Parsed instructions → compact forms with register indices, resolved symbols and branch
//! targets, so that the interpreter's hot loop does no string work. Only the functions a kernel
//! can reach are decoded; an instruction outside the supported set is an error naming it and its
//! PTX line.

mod arith;
mod collective;
mod instruction;
mod operands;
mod types;

pub use super::isa::*;
use super::parse::{Func, Stmt, VarSpace};
use crate::error::SimError;
use instruction::decode_one;
use operands::FnDecoder;
use std::collections::HashMap;

/// The symbol-table key of a `.shared` variable declared inside function `func`.
pub(crate) fn scoped_name(func: &str, var: &str) -> String {
    format!("{func}/{var}")
}

/// Decodes function `index` of `funcs` into `prog`, returning its decoded index and the module
/// indices of the functions it reaches.
pub fn decode_func(
    prog: &mut Program,
    funcs: &[Func],
    index: u32,
    syms: &HashMap<String, Symbol>,
) -> Result<(u32, Vec<u32>), SimError> {
    if let Some(&d) = prog.by_module_index.get(&index) {
        return Ok((d, Vec::new()));
    }
    let f = &funcs[index as usize];
    let body = f.body.as_ref().ok_or_else(|| {
        SimError::BadInput(format!(
            "function `{}` is declared but not defined in this PTX",
            f.name
        ))
    })?;
    let mut d = FnDecoder {
        regs: HashMap::new(),
        params: HashMap::new(),
        param_size: 0,
        locals: HashMap::new(),
        syms,
        scoped: HashMap::new(),
        labels: HashMap::new(),
        fixups: Vec::new(),
        reached: Vec::new(),
        declared: Default::default(),
        ranges: HashMap::new(),
        sizes: HashMap::new(),
        line: f.line,
        undeclared: None,
        has_nc: false,
    };
    let params = f
        .params
        .iter()
        .map(|p| (d.add_param(&p.name, p.size), p.size))
        .collect();
    let rets = f
        .rets
        .iter()
        .map(|p| (d.add_param(&p.name, p.size), p.size))
        .collect();
    let mut local_size = 0u64;
    for s in body {
        match s {
            Stmt::Local(v) if v.space == VarSpace::Shared => {
                // The function's own static shared variable, shadowing any of the module's.
                let sym = syms.get(&scoped_name(&f.name, &v.name)).copied();
                d.scoped.extend(sym.map(|sym| (v.name.clone(), sym)));
            }
            Stmt::Local(v) => {
                let off = local_size.next_multiple_of(v.align.max(1));
                local_size = off + v.size;
                d.locals.insert(v.name.clone(), off);
            }
            Stmt::Param(p) => {
                d.add_param(&p.name, p.size);
            }
            Stmt::Regs(names, size) => d.declare(names, *size),
            _ => {}
        }
    }
    let entry = prog.insts.len() as u32;
    let dec_index = prog.funcs.len() as u32;
    prog.by_module_index.insert(index, dec_index);
    for s in body {
        match s {
            Stmt::Label(l) => {
                d.labels.insert(l.clone(), prog.insts.len() as u32);
            }
            Stmt::Instr(raw) => {
                let at = prog.insts.len();
                d.line = raw.line;
                types::check(&d, raw)?;
                let op = decode_one(&mut d, raw, at)?;
                let guard = raw.guard.as_ref().map(|(neg, p)| (d.reg(p), *neg));
                if let Some((name, line)) = d.undeclared.take() {
                    return Err(undeclared(&f.name, &name, line));
                }
                prog.insts.push(Inst {
                    guard,
                    op,
                    line: raw.line,
                    src: raw.src,
                    caller: raw.caller,
                });
                prog.opcodes.push(raw.opcode.clone());
            }
            _ => {}
        }
    }
    // A body that falls off its end returns.
    prog.insts.push(Inst {
        guard: None,
        op: Op::Ret,
        line: f.line,
        src: SrcPos::default(),
        caller: SrcPos::default(),
    });
    prog.opcodes.push("ret".into());
    for (at, label) in std::mem::take(&mut d.fixups) {
        let target = *d.labels.get(&label).ok_or_else(|| {
            SimError::BadInput(format!(
                "branch to unknown label `{label}` at PTX line {}",
                prog.insts[at].line
            ))
        })?;
        prog.insts[at].op = Op::Bra(target);
    }
    prog.has_nc |= d.has_nc;
    prog.funcs.push(FuncInfo {
        entry,
        nregs: d.regs.len() as u32,
        param_size: d.param_size,
        params,
        rets,
        local_size,
    });
    Ok((dec_index, d.reached))
}

/// The error for a register no `.reg` of function `func` declares (ptxas: "Unknown symbol"); a
/// special register the simulator does not model is named as such.
fn undeclared(func: &str, name: &str, line: u32) -> SimError {
    let base = name.split('.').next().unwrap_or(name);
    let special = [
        "%pm",
        "%nsmid",
        "%gridid",
        "%clock_hi",
        "%reserved_smem",
        "%total_smem_size",
        "%aggr_smem_size",
        "%dynamic_smem_size",
        "%current_graph_exec",
        "%is_explicit_cluster",
    ]
    .iter()
    .any(|p| base.starts_with(p));
    if special {
        SimError::Unsupported(format!(
            "PTX line {line}: the special register `{name}` is not simulated"
        ))
    } else {
        SimError::parse(
            line,
            format!("register `{name}` is not declared (no `.reg` of `{func}` declares it)"),
        )
    }
}
