//! herd's GPU_PTX thread placement: `scopeTree (device (kernel (cta (warp P0 P1) P2) (cta P3)))`
//! after the code, and the memory map that may follow it (`x: global, y: shared`). Each
//! `device` is a GPU, each `cta` (also `block`, `work_group`) a CTA; a thread outside any `cta`
//! is a CTA of its own (herd's grammar wraps a bare list one level up); kernels and warps group
//! nothing the memory model scopes (PTX scopes are CTA, cluster, GPU, system).

use super::program::Placement;
use super::text::{Ctx, ParseError, thread_number};

/// Parses the scope tree of `text` (from `scopeTree`, possibly over several lines, the line
/// numbers of which are `lines`) and returns each thread's placement.
pub(crate) fn parse(
    cx: &Ctx,
    lines: &[(usize, &str)],
) -> Result<Vec<(usize, Placement)>, ParseError> {
    let mut toks: Vec<(usize, String)> = Vec::new();
    for &(ln, l) in lines {
        let l = l.replacen("scopeTree", " ", 1);
        for w in l.replace('(', " ( ").replace(')', " ) ").split_whitespace() {
            toks.push((ln, w.to_string()));
        }
    }
    let mut st = Walk {
        cx,
        toks: &toks,
        pos: 0,
        gpus: 0,
        ctas: 0,
        out: Vec::new(),
    };
    while st.pos < toks.len() {
        st.node(None, None)?;
    }
    Ok(st.out)
}

struct Walk<'a> {
    cx: &'a Ctx<'a>,
    toks: &'a [(usize, String)],
    pos: usize,
    gpus: i64,
    ctas: i64,
    out: Vec<(usize, Placement)>,
}

impl Walk<'_> {
    fn node(&mut self, gpu: Option<i64>, cta: Option<i64>) -> Result<(), ParseError> {
        let (ln, w) = self.toks[self.pos].clone();
        self.pos += 1;
        if w != "(" {
            let Some(tid) = w.strip_prefix('P').and_then(thread_number) else {
                return Err(self
                    .cx
                    .err(ln, &w, "expected `(` or a thread `Pn` in the scope tree"));
            };
            let cta = cta.unwrap_or_else(|| {
                self.ctas += 1;
                self.ctas - 1
            });
            self.out.push((
                tid,
                Placement::Gpu {
                    gpu: gpu.unwrap_or(0),
                    cluster: None,
                    cta,
                },
            ));
            return Ok(());
        }
        let Some((kl, kind)) = self.toks.get(self.pos).cloned() else {
            return Err(self.cx.err(ln, "(", "unclosed `(` in the scope tree"));
        };
        self.pos += 1;
        let (gpu, cta) = match kind.as_str() {
            "device" => {
                self.gpus += 1;
                (Some(self.gpus - 1), None)
            }
            "kernel" => (gpu, None),
            "cta" | "block" | "work_group" => {
                self.ctas += 1;
                (gpu, Some(self.ctas - 1))
            }
            "warp" | "sub_group" => (gpu, cta),
            _ => {
                return Err(self.cx.err(
                    kl,
                    &kind,
                    "expected `device`, `kernel`, `cta` or `warp` in the scope tree",
                ));
            }
        };
        loop {
            match self.toks.get(self.pos) {
                None => return Err(self.cx.err(ln, "(", "unclosed `(` in the scope tree")),
                Some((_, t)) if t == ")" => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(_) => self.node(gpu, cta)?,
            }
        }
    }
}
