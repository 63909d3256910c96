//! From a thread's code to its possible event sequences ("paths"), by symbolic execution: a read
//! returns a symbolic value (the event it is, `Expr::Var`); a branch on a symbolic value, and a
//! `cas`, fork the path under a constraint that the chosen reads-from must satisfy. Loops are
//! unrolled: a path that reaches a label more than [`UNROLL`] times is cut, as herd does, and kept
//! as a [`Spin`]: a thread that may loop forever (liveness, `enumerate`).

use super::program::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How many times a path may pass one label before it is cut.
pub const UNROLL: usize = 2;

/// Longest path (in events) a thread may produce.
pub const MAX_EVENTS: usize = 48;

/// A value computed from read values. `Var(i)` is the value returned by the read event with index
/// `i` (in its thread's path while paths are built, in the execution once they are combined).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A constant.
    Const(i64),
    /// The value a read event returned.
    Var(usize),
    /// An operation of two values.
    Bin(AluOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    fn bin(op: AluOp, a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(op.apply(*x, *y)),
            _ => Expr::Bin(op, Box::new(a), Box::new(b)),
        }
    }

    /// The read events the value depends on.
    pub fn vars(&self, out: &mut BTreeSet<usize>) {
        match self {
            Expr::Const(_) => {}
            Expr::Var(v) => {
                out.insert(*v);
            }
            Expr::Bin(_, a, b) => {
                a.vars(out);
                b.vars(out);
            }
        }
    }

    /// The same expression with every variable index moved by `offset`.
    pub fn shifted(&self, offset: usize) -> Expr {
        match self {
            Expr::Const(c) => Expr::Const(*c),
            Expr::Var(v) => Expr::Var(v + offset),
            Expr::Bin(op, a, b) => Expr::Bin(
                *op,
                Box::new(a.shifted(offset)),
                Box::new(b.shifted(offset)),
            ),
        }
    }

    /// The same expression with the variables `known` gives a value for replaced by it.
    ///
    /// ```
    /// use ptx_litmus::events::Expr;
    /// use ptx_litmus::program::AluOp;
    /// let e = Expr::Bin(AluOp::Add, Box::new(Expr::Var(3)), Box::new(Expr::Const(1)));
    /// assert_eq!(e.subst(&|v| (v == 3).then_some(41)), Expr::Const(42));
    /// assert_eq!(e.subst(&|_| None), e);
    /// ```
    pub fn subst(&self, known: &dyn Fn(usize) -> Option<i64>) -> Expr {
        match self {
            Expr::Const(c) => Expr::Const(*c),
            Expr::Var(v) => known(*v).map_or(Expr::Var(*v), Expr::Const),
            Expr::Bin(op, a, b) => Expr::bin(*op, a.subst(known), b.subst(known)),
        }
    }

    /// Evaluates with `var` giving the value of each read (None: unknown, e.g. out of thin air).
    pub fn eval(&self, var: &mut impl FnMut(usize) -> Option<i64>) -> Option<i64> {
        match self {
            Expr::Const(c) => Some(*c),
            Expr::Var(v) => var(*v),
            Expr::Bin(op, a, b) => Some(op.apply(a.eval(var)?, b.eval(var)?)),
        }
    }
}

/// What an event does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A memory operation: `ld`, `st`, `atom` or `red`.
    Mem {
        /// The location.
        loc: String,
        /// Reads (an `ld`, an `atom` or a `red`).
        reads: bool,
        /// Writes (`st`, or an atomic that writes: all but a failed `cas`).
        writes: bool,
        /// An `atom` or a `red`.
        atomic: bool,
        /// A `red` (its read never forms an acquire pattern, PTX 8.8).
        red: bool,
        /// Memory-ordering qualifier.
        sem: Sem,
        /// The proxy it is performed through (8.6).
        proxy: Proxy,
    },
    /// A memory fence.
    Fence(FenceKind),
    /// An arrival at CTA barrier `id` (its logical id, the value of the instruction's operand).
    Barrier {
        /// Barrier number.
        id: i64,
        /// The thread count that completes a phase; `None`: every thread of the CTA.
        count: Option<i64>,
        /// Whether and how the thread waits.
        wait: BarWait,
    },
}

/// What a thread does at a barrier after arriving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarWait {
    /// `bar.sync`: waits for the phase to complete.
    Sync,
    /// `bar.arrive`: goes on.
    Arrive,
    /// `bar.red`: waits and receives the reduction of the predicates (the event's value); the
    /// destination register holds `Var` of the event.
    Red(BarRed),
}

/// An event of a thread's path.
#[derive(Clone, Debug)]
pub struct Event {
    /// What it does.
    pub kind: Kind,
    /// Its scope (meaningful for strong operations and fences).
    pub scope: Scope,
    /// The value it writes, if it writes.
    pub value: Option<Expr>,
    /// Earlier reads of the thread it depends on, by data or by control (No-Thin-Air).
    pub deps: BTreeSet<usize>,
    /// Source line of its instruction.
    pub line: usize,
    /// Text of its instruction.
    pub text: String,
}

impl Event {
    /// A strong operation (PTX table 20): a fence, or a memory operation that is not weak.
    pub fn is_strong(&self) -> bool {
        match &self.kind {
            Kind::Mem { sem, .. } => *sem != Sem::Weak,
            Kind::Fence(k) => !k.is_proxy(),
            Kind::Barrier { .. } => false,
        }
    }
}

/// One way through a thread's code.
#[derive(Clone, Debug, Default)]
pub struct Path {
    /// Its events in program order.
    pub events: Vec<Event>,
    /// Constraints on read values under which this path is taken: `a CMP b`.
    pub constraints: Vec<(Cmp, Expr, Expr)>,
    /// For each constraint, how many events the path had when it was added (a path cut at a
    /// barrier it waits at forever keeps the constraints of its prefix).
    pub constraint_at: Vec<usize>,
    /// Final register values.
    pub regs: BTreeMap<String, Expr>,
    /// Set when the path was cut in a loop (it passed a label more than [`UNROLL`] times).
    pub spin: Option<Spin>,
}

/// Where a path was cut in a loop.
#[derive(Clone, Debug)]
pub struct Spin {
    /// The line of the loop's label.
    pub line: usize,
    /// Its text.
    pub text: String,
    /// The index of the first event of the loop's last iteration in the path.
    pub from: usize,
    /// Each register's value at the start and at the end of the last iteration.
    pub regs: Vec<(Expr, Expr)>,
}

impl Path {
    fn constrain(&mut self, c: Cmp, a: Expr, b: Expr) {
        self.constraints.push((c, a, b));
        self.constraint_at.push(self.events.len());
    }

    /// The path's first `n` events (a thread that waits forever at its `n`-th event) and the
    /// constraints of that prefix.
    pub(crate) fn prefix(&self, n: usize) -> Path {
        let keep: Vec<bool> = self.constraint_at.iter().map(|&at| at <= n).collect();
        Path {
            events: self.events[..n].to_vec(),
            constraints: self
                .constraints
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(c, _)| c.clone())
                .collect(),
            constraint_at: self
                .constraint_at
                .iter()
                .copied()
                .filter(|&at| at <= n)
                .collect(),
            regs: BTreeMap::new(),
            spin: self.spin.clone().filter(|_| n == self.events.len()),
        }
    }
}

#[derive(Clone)]
struct State {
    pc: usize,
    path: Path,
    ctrl: BTreeSet<usize>,
    /// Per label: how many times the path passed it, and its event count at the last pass.
    visits: HashMap<usize, (usize, usize)>,
    /// Per label: the registers at the last pass.
    regs_at: HashMap<usize, BTreeMap<String, Expr>>,
}

/// Every path of `thread` (bounded by [`UNROLL`]: a path cut in a loop is marked as a
/// [`Spin`], and by [`MAX_EVENTS`]); `Err` names the line of a
/// path that grew past [`MAX_EVENTS`], or of a barrier whose id or count depends on a loaded
/// value.
pub fn paths(
    thread: &Thread,
    init_regs: &BTreeMap<(usize, String), i64>,
) -> Result<Vec<Path>, String> {
    paths_with(thread, init_regs, BarrierValues::Refuse, &mut false)
}

/// A barrier operand's possible value, with the expression that must equal it (`None`: a
/// constant).
type Choice = (i64, Option<Expr>);

/// A `bar.red` predicate's value (1 or 0, after negation), with the comparison of the
/// predicate's expression with 0 that gives it (`None`: a constant).
type PredChoice = (Option<i64>, Option<(Cmp, Expr)>);

/// How [`paths_with`] treats a barrier id or thread count that depends on loaded values.
#[derive(Clone, Copy)]
pub(crate) enum BarrierValues<'a> {
    /// An error naming the line ([`paths`]).
    Refuse,
    /// Barrier 0 / count 0, and a note that some operand depends on a loaded value (the paths
    /// are then only used to learn which values the writes can produce).
    Placeholder,
    /// One path per value the operand can take, the read values ranging over this set.
    Domain(&'a BTreeSet<i64>),
}

/// The values `e` takes when each read it depends on returns a value of `domain`.
pub(crate) fn possible_values(e: &Expr, domain: &BTreeSet<i64>) -> BTreeSet<i64> {
    let mut vars = BTreeSet::new();
    e.vars(&mut vars);
    let vars: Vec<usize> = vars.into_iter().collect();
    let dom: Vec<i64> = domain.iter().copied().collect();
    let mut out = BTreeSet::new();
    let mut pick = vec![0usize; vars.len()];
    loop {
        let v = e.eval(&mut |i| vars.iter().position(|&x| x == i).map(|k| dom[pick[k]]));
        out.extend(v);
        let mut k = pick.len();
        loop {
            if k == 0 {
                return out;
            }
            k -= 1;
            pick[k] += 1;
            if pick[k] < dom.len() {
                break;
            }
            pick[k] = 0;
        }
    }
}

/// [`paths`], with a barrier operand that depends on loaded values treated as `values` says
/// (`needs_values` is set when one does, in [`BarrierValues::Placeholder`] mode).
pub(crate) fn paths_with(
    thread: &Thread,
    init_regs: &BTreeMap<(usize, String), i64>,
    values: BarrierValues,
    needs_values: &mut bool,
) -> Result<Vec<Path>, String> {
    let labels = thread.labels();
    let mut regs = BTreeMap::new();
    for ((t, r), v) in init_regs {
        if *t == thread.id {
            regs.insert(r.clone(), Expr::Const(*v));
        }
    }
    let start = State {
        pc: 0,
        path: Path {
            regs,
            ..Path::default()
        },
        ctrl: BTreeSet::new(),
        visits: HashMap::new(),
        regs_at: HashMap::new(),
    };
    let mut done = Vec::new();
    let mut work = vec![start];
    while let Some(mut st) = work.pop() {
        loop {
            let Some(line) = thread.code.get(st.pc) else {
                done.push(st.path);
                break;
            };
            if st.path.events.len() > MAX_EVENTS {
                return Err(format!(
                    "line {}: thread P{} runs past {MAX_EVENTS} events",
                    line.line, thread.id
                ));
            }
            let val = |st: &State, o: &Operand| match o {
                Operand::Imm(v) => Expr::Const(*v),
                Operand::Reg(r) => st.path.regs.get(r).cloned().unwrap_or(Expr::Const(0)),
            };
            st.pc += 1;
            let ev = |st: &mut State,
                      kind: Kind,
                      scope: Scope,
                      value: Option<Expr>,
                      data: BTreeSet<usize>| {
                let mut deps = st.ctrl.clone();
                deps.extend(data);
                st.path.events.push(Event {
                    kind,
                    scope,
                    value,
                    deps,
                    line: line.line,
                    text: line.text.clone(),
                });
                st.path.events.len() - 1
            };
            match &line.instr {
                Instr::Label(_) => {
                    let here = st.path.events.len();
                    let v = st.visits.entry(st.pc - 1).or_insert((0, here));
                    v.0 += 1;
                    let from = std::mem::replace(&mut v.1, here);
                    let cut = v.0 > UNROLL;
                    let before = st
                        .regs_at
                        .insert(st.pc - 1, st.path.regs.clone())
                        .unwrap_or_default();
                    if cut {
                        // Cut: the loop ran past its bound. The path is kept as a spin; it is a
                        // hang in an execution where its last iteration reads final values and
                        // leaves the registers as it found them (the next one does the same).
                        let names: BTreeSet<&String> =
                            before.keys().chain(st.path.regs.keys()).collect();
                        let unset = Expr::Const(0);
                        let regs = names
                            .into_iter()
                            .map(|r| {
                                (
                                    before.get(r).unwrap_or(&unset).clone(),
                                    st.path.regs.get(r).unwrap_or(&unset).clone(),
                                )
                            })
                            .collect();
                        st.path.spin = Some(Spin {
                            line: line.line,
                            text: line.text.clone(),
                            from,
                            regs,
                        });
                        done.push(st.path);
                        break;
                    }
                }
                Instr::Ld {
                    sem,
                    scope,
                    dst,
                    loc,
                    proxy,
                } => {
                    let kind = Kind::Mem {
                        loc: loc.clone(),
                        reads: true,
                        writes: false,
                        atomic: false,
                        red: false,
                        sem: *sem,
                        proxy: *proxy,
                    };
                    let e = ev(&mut st, kind, *scope, None, BTreeSet::new());
                    st.path.regs.insert(dst.clone(), Expr::Var(e));
                }
                Instr::St {
                    sem,
                    scope,
                    loc,
                    val: v,
                    proxy,
                } => {
                    let value = val(&st, v);
                    let mut data = BTreeSet::new();
                    value.vars(&mut data);
                    let kind = Kind::Mem {
                        loc: loc.clone(),
                        reads: false,
                        writes: true,
                        atomic: false,
                        red: false,
                        sem: *sem,
                        proxy: *proxy,
                    };
                    ev(&mut st, kind, *scope, Some(value), data);
                }
                Instr::Atom {
                    sem,
                    scope,
                    op,
                    dst,
                    loc,
                    a,
                    b,
                    proxy,
                } => {
                    let a = val(&st, a);
                    let mut data = BTreeSet::new();
                    a.vars(&mut data);
                    let red = dst.is_none();
                    let me = st.path.events.len();
                    let old = Expr::Var(me);
                    let mem = |writes| Kind::Mem {
                        loc: loc.clone(),
                        reads: true,
                        writes,
                        atomic: true,
                        red,
                        sem: *sem,
                        proxy: *proxy,
                    };
                    if *op == RmwOp::Cas {
                        let b = val(&st, b.as_ref().expect("cas has two operands"));
                        b.vars(&mut data);
                        // Failure: the compare fails and nothing is written.
                        let mut fail = st.clone();
                        ev(&mut fail, mem(false), *scope, None, data.clone());
                        fail.path.constrain(Cmp::Ne, old.clone(), a.clone());
                        if let Some(d) = dst {
                            fail.path.regs.insert(d.clone(), old.clone());
                        }
                        work.push(fail);
                        // The write exists only when the read returned `a`: its value is
                        // written as depending on the read (No-Thin-Air, `axioms`).
                        let value = Expr::Bin(AluOp::Second, Box::new(old.clone()), Box::new(b));
                        ev(&mut st, mem(true), *scope, Some(value), data);
                        st.path.constrain(Cmp::Eq, old.clone(), a);
                    } else {
                        let alu = match op {
                            RmwOp::Mul => AluOp::Mul,
                            RmwOp::Div => AluOp::Div,
                            RmwOp::Add => AluOp::Add,
                            RmwOp::Sub => AluOp::Sub,
                            RmwOp::Exch => AluOp::Second,
                            RmwOp::Inc => AluOp::Inc,
                            RmwOp::Dec => AluOp::Dec,
                            RmwOp::And => AluOp::And,
                            RmwOp::Or => AluOp::Or,
                            RmwOp::Xor => AluOp::Xor,
                            RmwOp::Min => AluOp::Min,
                            RmwOp::Max => AluOp::Max,
                            RmwOp::Cas => unreachable!(),
                        };
                        // `exch` writes its operand: the value does not depend on the read.
                        let value = if alu == AluOp::Second {
                            a
                        } else {
                            Expr::Bin(alu, Box::new(old.clone()), Box::new(a))
                        };
                        ev(&mut st, mem(true), *scope, Some(value), data);
                    }
                    if let Some(d) = dst {
                        st.path.regs.insert(d.clone(), old);
                    }
                }
                Instr::Fence { kind, scope } => {
                    ev(&mut st, Kind::Fence(*kind), *scope, None, BTreeSet::new());
                }
                Instr::Bar { op, id, count } => {
                    // An operand from a loaded value forks the path: one branch per value it
                    // may take, under the constraint that it does (the reads-from choice of an
                    // execution decides which branch is taken).
                    let mut choices = |o: &Operand, what: &str| -> Result<Vec<Choice>, String> {
                        let e = val(&st, o);
                        if let Expr::Const(v) = e {
                            return Ok(vec![(v, None)]);
                        }
                        match values {
                            BarrierValues::Refuse => Err(format!(
                                "line {}: the barrier's {what} depends on a loaded value (not modelled)",
                                line.line
                            )),
                            BarrierValues::Placeholder => {
                                *needs_values = true;
                                Ok(vec![(0, None)])
                            }
                            BarrierValues::Domain(d) => {
                                let mut vars = BTreeSet::new();
                                e.vars(&mut vars);
                                if (d.len() as f64).powi(vars.len() as i32) > 100_000.0 {
                                    return Err(format!(
                                        "line {}: the barrier's {what} depends on too many loaded values (not modelled)",
                                        line.line
                                    ));
                                }
                                Ok(possible_values(&e, d)
                                    .into_iter()
                                    .map(|v| (v, Some(e.clone())))
                                    .collect())
                            }
                        }
                    };
                    let ids = choices(id, "id")?;
                    let counts = match count {
                        Some(c) => choices(c, "thread count")?
                            .into_iter()
                            .map(|(v, e)| (Some(v), e))
                            .collect(),
                        None => vec![(None, None)],
                    };
                    // `bar.red`'s predicate: true or false, each under its constraint.
                    let preds: Vec<PredChoice> = match op {
                        BarOp::Red { pred, negate, .. } => match val(&st, pred) {
                            Expr::Const(p) => vec![(Some(i64::from((p != 0) != *negate)), None)],
                            e => [(Cmp::Ne, true), (Cmp::Eq, false)]
                                .into_iter()
                                .map(|(c, holds)| {
                                    (Some(i64::from(holds != *negate)), Some((c, e.clone())))
                                })
                                .collect(),
                        },
                        _ => vec![(None, None)],
                    };
                    let mut variants = Vec::new();
                    for (i, ie) in &ids {
                        for (c, ce) in &counts {
                            for (p, pe) in &preds {
                                variants.push((*i, ie.clone(), *c, ce.clone(), *p, pe.clone()));
                            }
                        }
                    }
                    let (wait, dst) = match op {
                        BarOp::Sync => (BarWait::Sync, None),
                        BarOp::Arrive => (BarWait::Arrive, None),
                        BarOp::Red { op, dst, .. } => (BarWait::Red(*op), Some(dst)),
                    };
                    // No value at all: no execution takes this path.
                    let Some(last) = variants.len().checked_sub(1) else {
                        break;
                    };
                    for (k, (id, ie, count, ce, p, pe)) in variants.into_iter().enumerate() {
                        let mut s2 = st.clone();
                        if let Some(e) = ie {
                            s2.path.constrain(Cmp::Eq, e, Expr::Const(id));
                        }
                        if let (Some(e), Some(c)) = (ce, count) {
                            s2.path.constrain(Cmp::Eq, e, Expr::Const(c));
                        }
                        if let Some((c, e)) = pe {
                            s2.path.constrain(c, e, Expr::Const(0));
                        }
                        let kind = Kind::Barrier { id, count, wait };
                        let e = ev(
                            &mut s2,
                            kind,
                            Scope::Cta,
                            p.map(Expr::Const),
                            BTreeSet::new(),
                        );
                        if let Some(d) = dst {
                            s2.path.regs.insert(d.clone(), Expr::Var(e));
                        }
                        if k == last {
                            st = s2;
                        } else {
                            work.push(s2);
                        }
                    }
                }
                Instr::Alu { op, dst, a, b } => {
                    let v = Expr::bin(*op, val(&st, a), val(&st, b));
                    st.path.regs.insert(dst.clone(), v);
                }
                Instr::Branch { cond, target } => {
                    let to = labels[target.as_str()];
                    match cond {
                        None => st.pc = to,
                        Some((c, a, b)) => match (val(&st, a), val(&st, b)) {
                            (Expr::Const(x), Expr::Const(y)) => {
                                if c.holds(x, y) {
                                    st.pc = to;
                                }
                            }
                            (x, y) => {
                                let mut vars = BTreeSet::new();
                                x.vars(&mut vars);
                                y.vars(&mut vars);
                                st.ctrl.extend(vars);
                                let mut taken = st.clone();
                                taken.pc = to;
                                taken.path.constrain(*c, x.clone(), y.clone());
                                work.push(taken);
                                st.path.constrain(c.negate(), x, y);
                            }
                        },
                    }
                }
            }
        }
    }
    Ok(done)
}
