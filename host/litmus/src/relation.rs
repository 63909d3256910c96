//! Binary relations over the events of one execution, as rows of bits (at most 128 events).

/// The most events an execution may have.
pub const MAX: usize = 128;

/// A relation: bit `j` of row `i` says `i → j`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rel {
    rows: Vec<u128>,
}

impl Rel {
    /// The empty relation over `n` events.
    pub fn new(n: usize) -> Rel {
        assert!(n <= MAX, "at most {MAX} events");
        Rel { rows: vec![0; n] }
    }
    /// The number of events.
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    /// Whether it relates no events at all.
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|r| *r == 0)
    }
    /// Adds `i → j`.
    pub fn add(&mut self, i: usize, j: usize) {
        self.rows[i] |= 1 << j;
    }
    /// Whether `i → j`.
    pub fn has(&self, i: usize, j: usize) -> bool {
        self.rows[i] >> j & 1 == 1
    }
    /// The successors of `i`.
    pub fn row(&self, i: usize) -> u128 {
        self.rows[i]
    }
    /// Adds every pair of `other`.
    pub fn union_with(&mut self, other: &Rel) {
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            *a |= b;
        }
    }
    /// The transitive closure (Warshall).
    pub fn closure(&self) -> Rel {
        let mut r = self.clone();
        for k in 0..r.len() {
            let rk = r.rows[k];
            for i in 0..r.len() {
                if r.rows[i] >> k & 1 == 1 {
                    r.rows[i] |= rk;
                }
            }
        }
        r
    }
    /// `self ; other`.
    pub fn then(&self, other: &Rel) -> Rel {
        let mut out = Rel::new(self.len());
        for i in 0..self.len() {
            let mut acc = 0;
            for j in bits(self.rows[i]) {
                acc |= other.rows[j];
            }
            out.rows[i] = acc;
        }
        out
    }
    /// Whether the relation, restricted to the events of `set`, has a cycle.
    pub fn cyclic_within(&self, set: u128) -> bool {
        let mut r = self.clone();
        for row in r.rows.iter_mut() {
            *row &= set;
        }
        let c = r.closure();
        bits(set).any(|i| c.has(i, i))
    }
    /// Whether the relation has a cycle.
    pub fn is_cyclic(&self) -> bool {
        let all = if self.len() == MAX {
            u128::MAX
        } else {
            (1u128 << self.len()) - 1
        };
        self.cyclic_within(all)
    }
}

/// The indices of the set bits of `x`.
pub fn bits(mut x: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if x == 0 {
            None
        } else {
            let i = x.trailing_zeros() as usize;
            x &= x - 1;
            Some(i)
        }
    })
}

/// The maximal cliques of the undirected graph `adj` restricted to `set` (Bron–Kerbosch with pivot).
pub fn maximal_cliques(adj: &[u128], set: u128) -> Vec<u128> {
    fn bk(adj: &[u128], r: u128, mut p: u128, mut x: u128, out: &mut Vec<u128>) {
        if p == 0 && x == 0 {
            out.push(r);
            return;
        }
        let pivot = bits(p | x)
            .max_by_key(|&u| (adj[u] & p).count_ones())
            .unwrap();
        for v in bits(p & !adj[pivot]) {
            bk(adj, r | 1 << v, p & adj[v], x & adj[v], out);
            p &= !(1 << v);
            x |= 1 << v;
        }
    }
    let mut out = Vec::new();
    if set != 0 {
        bk(adj, 0, set, 0, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_cycles() {
        let mut r = Rel::new(3);
        r.add(0, 1);
        r.add(1, 2);
        assert!(r.closure().has(0, 2));
        assert!(!r.is_cyclic());
        r.add(2, 0);
        assert!(r.is_cyclic());
        assert!(!r.cyclic_within(0b011));
    }

    #[test]
    fn cliques() {
        // 0-1, 1-2, 0-2 triangle; 3 linked to 2 only.
        let adj = [0b0110, 0b0101, 0b1011, 0b0100];
        let mut c = maximal_cliques(&adj, 0b1111);
        c.sort();
        assert_eq!(c, vec![0b0111, 0b1100]);
    }
}
