//! The initial state `{ … }`: location values, register values and pointers, and aliases —
//! virtual aliases (`y=&x`, `y=x`, `y@generic aliases x`) and a location's address through
//! another proxy (`y@surface aliases x`), possibly chained.

use super::program::*;
use super::text::{Ctx, ParseError, is_ident, norm_reg, parse_int, thread_number};
use std::collections::BTreeMap;

/// The initial state as written: values, the locations whose address a register holds
/// (`P0:r0=&x`, `P0:r0=x`), and virtual aliases (`y=&x`, `y=x`, `y@generic aliases x`).
#[derive(Default)]
pub(crate) struct Init {
    pub(crate) mem: BTreeMap<String, i64>,
    pub(crate) regs: BTreeMap<(usize, String), i64>,
    pub(crate) reg_ptrs: BTreeMap<(usize, String), String>,
    pub(crate) aliases: BTreeMap<String, String>,
    /// Names of one location's address through another proxy (`y@surface aliases x`).
    pub(crate) proxy_aliases: BTreeMap<String, String>,
}

impl Init {
    /// The location an alias names, through chains of aliases (an alias of an alias is an alias
    /// of the root location); `Err` names an alias that leads back to itself.
    pub(crate) fn root(&self, name: &str) -> Result<String, String> {
        let mut at = name.to_string();
        for _ in 0..=self.aliases.len() + self.proxy_aliases.len() {
            match self
                .aliases
                .get(&at)
                .or_else(|| self.proxy_aliases.get(&at))
            {
                Some(next) => at = next.clone(),
                None => return Ok(at),
            }
        }
        Err(name.to_string())
    }

    /// The virtual address of a name: a proxy alias has the address of what it aliases (through
    /// chains of proxy aliases); every other name is its own address.
    pub(crate) fn vaddr(&self, name: &str) -> String {
        let mut at = name.to_string();
        for _ in 0..=self.proxy_aliases.len() {
            match self.proxy_aliases.get(&at) {
                Some(next) => at = next.clone(),
                None => break,
            }
        }
        at
    }

    /// Gives every location named in the state an address (`0x1000 × (k + 1)` by name order),
    /// stores the addresses in the pointer registers, and returns the register → location map
    /// per thread.
    pub(crate) fn resolve(&mut self) -> BTreeMap<(usize, String), String> {
        let mut names: Vec<String> = self.mem.keys().cloned().collect();
        names.extend(self.reg_ptrs.values().cloned());
        names.sort();
        names.dedup();
        let addr = |n: &str| 0x1000 * (names.iter().position(|m| m == n).unwrap() as i64 + 1);
        for (k, target) in &self.reg_ptrs {
            self.regs.insert(k.clone(), addr(target));
            self.mem.entry(target.clone()).or_insert(0);
        }
        let roots: Vec<String> = self
            .aliases
            .keys()
            .chain(self.proxy_aliases.keys())
            .filter_map(|a| self.root(a).ok())
            .collect();
        for r in roots {
            self.mem.entry(r).or_insert(0);
        }
        self.reg_ptrs.clone()
    }
}

/// `x=0; P0:r0=0; 1:r1=2; int y = 1; uint32_t z; w:global; P0:r2=&x; P1:r3=y; a=&x;` — types
/// and state spaces are accepted and ignored: every location is a naturally aligned scalar of
/// its own, a virtual alias of one (`a=&x`, `a=x`, `a@generic aliases x`: Dat3M's reading), or
/// its address through another proxy (`a@texture aliases x`); aliases may chain.
pub(crate) fn parse_init(cx: &Ctx, init: &[(usize, String)]) -> Result<Init, ParseError> {
    let mut st = Init::default();
    for (ln, chunk) in init {
        for item in chunk.split(';') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            if let Some((virt, rest)) = item.split_once('@') {
                // Dat3M's `y@PROXY aliases x`: a virtual alias; the accesses through it name
                // their proxy themselves (`tld`, `suld`, …).
                let words: Vec<&str> = rest.split_whitespace().collect();
                match words.as_slice() {
                    [proxy, "aliases", phys]
                        if Proxy::from_name(proxy).is_some()
                            && is_ident(virt.trim())
                            && is_ident(phys) =>
                    {
                        // `@generic`: another virtual address of the location; `@texture`,
                        // `@surface`, `@constant`: the same address, accessed through that
                        // proxy (Dat3M's reading).
                        let map = if Proxy::from_name(proxy) == Some(Proxy::Generic) {
                            &mut st.aliases
                        } else {
                            &mut st.proxy_aliases
                        };
                        map.insert(virt.trim().to_string(), phys.to_string());
                        continue;
                    }
                    _ => {
                        return Err(cx.err(
                            *ln,
                            item,
                            "a proxy declaration is `LOC@PROXY aliases LOC` with PROXY one of generic, texture, surface, constant",
                        ));
                    }
                }
            }
            let (lhs, rhs) = match item.split_once('=') {
                Some((l, r)) => (l.trim(), Some(r.trim())),
                None => (item, None),
            };
            // An integer, or the address of a location (`&x` or `x`).
            let (value, pointee) = match rhs {
                Some(r) => match parse_int(r) {
                    Some(v) => (v, None),
                    None => {
                        let target = r.strip_prefix('&').unwrap_or(r).trim();
                        if !is_ident(target) || target.starts_with('%') {
                            return Err(cx.err(
                                *ln,
                                r,
                                "expected an integer initial value or a location (`&x`)",
                            ));
                        }
                        (0, Some(target.to_string()))
                    }
                },
                None => (0, None),
            };
            // The last word is the name; earlier words are a type (`int`, `uint32_t`, `.global .u32`).
            let name = lhs.split_whitespace().last().unwrap_or("");
            let name = name
                .strip_prefix('[')
                .and_then(|n| n.strip_suffix(']'))
                .unwrap_or(name);
            if let Some((t, r)) = name.split_once(':') {
                if let Some(tid) = thread_number(t) {
                    let key = (tid, norm_reg(r));
                    match pointee {
                        Some(p) => {
                            st.reg_ptrs.insert(key, p);
                        }
                        None => {
                            st.regs.insert(key, value);
                        }
                    }
                    continue;
                }
                // `x:global` / `x:shared`: a location declaration.
                if rhs.is_none() && matches!(r, "global" | "shared" | "generic") {
                    st.mem.entry(t.to_string()).or_insert(0);
                    continue;
                }
                return Err(cx.err(*ln, name, "expected `Pn:reg=value` or `location=value`"));
            }
            if !is_ident(name) {
                return Err(cx.err(*ln, name, "expected a location or register name"));
            }
            match pointee {
                // Dat3M's `y = x` / `y = &x` for locations: y is a virtual alias of x.
                Some(p) => {
                    st.aliases.insert(name.to_string(), p);
                }
                None => {
                    st.mem.insert(name.to_string(), value);
                }
            }
        }
    }
    Ok(st)
}
