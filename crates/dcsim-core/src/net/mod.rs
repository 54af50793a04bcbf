//! The network: nodes (hosts and switches), store-and-forward egress ports (queue + link), and
//! shortest-path routing. `topology.rs` turns a [`TopologySpec`](crate::scenario::TopologySpec)
//! into a [`Network`].
//!
//! Routing state is O(nodes + links): only nodes that choose between several ports (switches,
//! and hosts with more than one link) keep a table, and it is indexed by *destination group*,
//! the hosts that hang off the same set of neighbours (one group for a whole dumbbell, one per
//! rack of a fabric), not by host. The last hop to a host is found from the host's own (few)
//! incoming links. Node names are looked up through a hash map.
//!
//! **ECMP.** With an ECMP seed, a switch keeps every equal-cost next hop towards a group (the
//! ports to neighbours one hop closer), and picks one per flow by hashing the packet's 5-tuple:
//! (source, destination, the flow id standing for the connection's port pair, TCP), salted with
//! the switch's id so that the tiers of a fabric choose independently (no hash polarisation). A
//! flow's packets thus keep one path (no reordering); its ACKs hash their own, reversed tuple and
//! may take another path back, as in real fabrics. A table entry is one port, or an index into
//! the distinct equal-cost sets, each stored once (a leaf's uplinks serve every remote group).
//! Without a seed the first port found is used, as before ECMP existed.

pub mod port;
pub mod topology;

use std::collections::{HashMap, VecDeque};

use rustc_hash::FxHashMap;

use crate::error::{invalid, Result};
use crate::packet::{FlowId, NodeId};
use crate::scenario::NodeKind;

/// Most routing-table entries a network may need (4 bytes each: 256 MiB).
pub const MAX_ROUTE_ENTRIES: u64 = 1 << 26;

/// Refuse routing tables of `rows` x `groups` entries beyond [`MAX_ROUTE_ENTRIES`], naming
/// `network`. The memory plan (`sim::check_memory`, `sim::fit_sampling`) makes it from the spec's
/// [`crate::scenario::TopologySpec::route_shape`] before anything is built (a 20 000-node graph
/// had been refused only when its world was built, after ~10 s of checks), the network builder
/// again from the tables it builds.
pub fn check_route_entries(rows: u64, groups: u64) -> Result<()> {
    let entries = rows.saturating_mul(groups);
    if entries > MAX_ROUTE_ENTRIES {
        return Err(invalid(
            "network",
            format!(
                "routing needs {rows} tables x {groups} destination groups = {entries} entries, more than the \
                 maximum {MAX_ROUTE_ENTRIES} (hosts that share their switches share a group: attach hosts to fewer \
                 switches)"
            ),
        ));
    }
    Ok(())
}
/// Destination groups from which the route searches use several threads (below, one search
/// costs microseconds and a thread's start more).
const PARALLEL_MIN_GROUPS: usize = 64;
/// Most threads of the route searches (each holds a search's working memory, ~16 bytes a node).
pub const MAX_ROUTE_THREADS: usize = 16;
/// Equal-cost ports a batch of route searches may hold at once (4 bytes each: 16 MB), whatever
/// the machine's cores, unless one group a thread holds more: see [`route_batch_groups`].
pub const ROUTE_BATCH_PORTS: u64 = 1 << 22;

/// The destination groups searched in one batch on `threads` threads: 64 a thread, fewer where
/// their equal-cost sets (at most `rows` x `ecmp_width` ports a group) would hold more than
/// [`ROUTE_BATCH_PORTS`], but at least one a thread. A batch of 64 groups a thread had held 26 MB
/// on 2 threads and ~150 MB on 16 at k = 40 (an audit), a peak that grew with the machine.
pub fn route_batch_groups(threads: u64, rows: u64, ecmp_width: u64) -> u64 {
    (ROUTE_BATCH_PORTS / (rows * ecmp_width).max(1)).clamp(threads, 64 * threads)
}

pub use port::Port;

pub type PortId = u32;
const NO_ROUTE: PortId = PortId::MAX;
const NONE: u32 = u32::MAX;
/// A table entry with this bit is an index into `ecmp_sets` (port ids stay below 2^31: at most
/// 2 x `MAX_LINKS` ports).
const ECMP_BIT: u32 = 1 << 31;
/// The protocol field of the hashed 5-tuple (IP protocol number of TCP).
const PROTO_TCP: u64 = 6;

/// SplitMix64's finaliser (Steele, Lea and Flood 2014): a bijective 64-bit mix whose output bits
/// each depend on every input bit.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Egress ports of this node.
    pub ports: Vec<PortId>,
}

#[derive(Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Ports to sample the queue of.
    pub monitored: Vec<PortId>,
    names: HashMap<String, NodeId>,
    /// Per host node: its destination group (NONE for switches).
    group: Vec<u32>,
    /// The last hops towards each host: node v's are `last_hops[last_hop_start[v]..last_hop_start[v + 1]]`,
    /// each (the node it leaves from, the port), in port order. Flat, with the sending node beside
    /// the port, so that forwarding reads neither a per-host allocation nor the (large) port.
    last_hop_start: Vec<u32>,
    last_hops: Vec<(NodeId, PortId)>,
    /// Per node: its row in `table` (switches and multi-homed hosts; NONE for hosts with one link).
    row: Vec<u32>,
    groups: usize,
    /// Rows of `table` (switches and multi-homed hosts).
    rows: usize,
    /// table[group * rows + row]: the egress port towards that group, NO_ROUTE, or (with
    /// `ECMP_BIT`) the index of its equal-cost set. By group: a group's search writes its entries
    /// next to each other (by row, the k = 64 fat-tree's searches wrote one line per entry).
    table: Vec<u32>,
    /// Distinct equal-cost port sets: (offset, count) into `ecmp_ports`.
    ecmp_sets: Vec<(u32, u32)>,
    ecmp_ports: Vec<PortId>,
    /// Seed of the ECMP hash; None: no ECMP (the first equal-cost port, no hashing).
    pub ecmp_seed: Option<u64>,
}

impl Network {
    /// Add a node; names must be unique (checked by the scenario validation).
    pub fn add_node(&mut self, name: String, kind: NodeKind) -> NodeId {
        let id = self.nodes.len() as NodeId;
        self.names.insert(name.clone(), id);
        self.nodes.push(Node { name, kind, ports: Vec::new() });
        id
    }

    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.names.get(name).copied()
    }

    pub fn port_between(&self, from: NodeId, to: NodeId) -> Option<PortId> {
        self.nodes[from as usize].ports.iter().copied().find(|&p| self.ports[p as usize].to == to)
    }

    /// Routing-table entries allocated (switches and multi-homed hosts x destination groups).
    pub fn route_entries(&self) -> usize {
        self.table.len()
    }

    /// Distinct equal-cost port sets the routes use, and the ports they hold in all.
    pub fn ecmp_set_sizes(&self) -> (usize, usize) {
        (self.ecmp_sets.len(), self.ecmp_ports.len())
    }

    /// Whether hosts `a` and `b` reach each other (a route each way).
    pub fn connected(&self, a: NodeId, b: NodeId) -> bool {
        self.route(a, b).is_some() && self.route(b, a).is_some()
    }

    /// A pair (a, b) of `from` x `to`, a != b, that is not [`Self::connected`], if there is one:
    /// every pair decided, in O(|from| + |to| + groups^2). Links run both ways and only switches
    /// relay, so whether host a reaches host b depends on a only through its neighbours and on b
    /// only through its neighbours: through their destination groups (the hosts with the same
    /// set of neighbours). One pair of distinct hosts per pair of groups decides them all.
    pub fn unconnected_pair(&self, from: &[NodeId], to: &[NodeId]) -> Option<(NodeId, NodeId)> {
        // Up to two hosts per group (two, so that a pair of distinct hosts exists when both
        // lists have the group and share a host).
        let reps = |hosts: &[NodeId]| -> Vec<Vec<NodeId>> {
            let mut index: HashMap<u32, usize> = HashMap::new();
            let mut out: Vec<Vec<NodeId>> = Vec::new();
            for &h in hosts {
                let i = *index.entry(self.group[h as usize]).or_insert_with(|| {
                    out.push(Vec::with_capacity(2));
                    out.len() - 1
                });
                if out[i].len() < 2 && !out[i].contains(&h) {
                    out[i].push(h);
                }
            }
            out
        };
        let (a_reps, b_reps) = (reps(from), reps(to));
        for xs in &a_reps {
            for ys in &b_reps {
                let pair = xs.iter().flat_map(|&a| ys.iter().map(move |&b| (a, b))).find(|&(a, b)| a != b);
                if let Some((a, b)) = pair {
                    if !self.connected(a, b) {
                        return Some((a, b));
                    }
                }
            }
        }
        None
    }

    /// Egress port of `node` on the way to host `dst`, if `dst` is reachable: of several
    /// equal-cost ports, the first (see [`Self::route_flow`] for the one a flow takes).
    #[inline]
    pub fn route(&self, node: NodeId, dst: NodeId) -> Option<PortId> {
        self.route_with(node, dst, |_| 0)
    }

    /// Egress port of `node` for a packet of flow `flow` from `src` to `dst`: with ECMP, the
    /// equal-cost port its 5-tuple hashes to at this switch.
    #[inline]
    pub fn route_flow(&self, node: NodeId, dst: NodeId, src: NodeId, flow: FlowId) -> Option<PortId> {
        self.route_with(node, dst, |count| self.ecmp_pick(node, src, dst, flow, count))
    }

    /// Which of `count` equal-cost ports switch `node` gives the 5-tuple (src, dst, flow, TCP):
    /// a seeded hash of the tuple, salted with the node, mapped to 0..count by multiply-shift.
    #[inline]
    pub fn ecmp_pick(&self, node: NodeId, src: NodeId, dst: NodeId, flow: FlowId, count: u32) -> u32 {
        let seed = self.ecmp_seed.unwrap_or(0);
        let tuple = mix64(((src as u64) << 32 | dst as u64) ^ mix64((flow as u64) << 8 | PROTO_TCP));
        let h = mix64(seed ^ tuple ^ mix64((node as u64).wrapping_add(0x9e37_79b9_7f4a_7c15)));
        ((h as u128 * count as u128) >> 64) as u32
    }

    #[inline]
    fn route_with(&self, node: NodeId, dst: NodeId, pick: impl Fn(u32) -> u32) -> Option<PortId> {
        let d = dst as usize;
        let hops = &self.last_hops[self.last_hop_start[d] as usize..self.last_hop_start[d + 1] as usize];
        for &(from, p) in hops {
            if from == node {
                return Some(p);
            }
        }
        let row = self.row[node as usize];
        if row != NONE {
            let e = self.table[self.group[d] as usize * self.rows + row as usize];
            if e == NO_ROUTE {
                return None;
            }
            if e & ECMP_BIT == 0 {
                return Some(e);
            }
            let (offset, count) = self.ecmp_sets[(e & !ECMP_BIT) as usize];
            return Some(self.ecmp_ports[(offset + pick(count)) as usize]);
        }
        // A host with one link: its uplink, if the switch at the other end has a route (switches
        // always have a table row, so this recursion is one level deep).
        let &[p] = self.nodes[node as usize].ports.as_slice() else { return None };
        let next = self.ports[p as usize].to;
        let relays = self.nodes[next as usize].kind == NodeKind::Switch;
        (relays && self.route(next, dst).is_some()).then_some(p)
    }

    /// Shortest-path (hop count) routes to every host. Hosts are grouped by the set of nodes
    /// their links come from; one breadth-first search per group over the reversed links, where
    /// only switches relay. Ties go to the port found first, scanning neighbours in node order
    /// and ports in id order, so routes are deterministic. With an ECMP seed, a switch also keeps
    /// the other ports to neighbours one hop closer (found while the search finishes the level
    /// before it), the first found first. Cost: O(groups x (nodes + links)), the groups' searches
    /// spread over the cores (the tables do not depend on how many).
    pub fn compute_routes(&mut self) -> Result<()> {
        self.compute_routes_on(None)
    }

    /// [`Self::compute_routes`] on `threads` threads (None: all cores once there are
    /// `PARALLEL_MIN_GROUPS` groups); the tables do not depend on it.
    fn compute_routes_on(&mut self, threads: Option<usize>) -> Result<()> {
        let n = self.nodes.len();
        // Each node's incoming links as (port, the node it leaves), and which nodes are switches:
        // the searches read these compact lists, not the ports and nodes themselves (a port is
        // hundreds of bytes; a k = 64 fat-tree's searches cross ~5 x 10^8 links).
        let mut incoming: Vec<Vec<(PortId, NodeId)>> = vec![Vec::new(); n];
        for (pid, p) in self.ports.iter().enumerate() {
            incoming[p.to as usize].push((pid as PortId, p.from));
        }
        let switch: Vec<bool> = self.nodes.iter().map(|v| v.kind == NodeKind::Switch).collect();
        // Destination groups: hosts with the same set of upstream neighbours.
        let mut key_to_group: FxHashMap<Vec<NodeId>, u32> = FxHashMap::default();
        let mut group_seeds: Vec<Vec<NodeId>> = Vec::new();
        self.group = vec![NONE; n];
        self.last_hop_start = Vec::with_capacity(n + 1);
        self.last_hops.clear();
        for (v, inc) in incoming.iter().enumerate() {
            self.last_hop_start.push(self.last_hops.len() as u32);
            if self.nodes[v].kind != NodeKind::Host {
                continue;
            }
            let mut key: Vec<NodeId> = inc.iter().map(|&(_, from)| from).collect();
            key.sort_unstable();
            key.dedup();
            let next = group_seeds.len() as u32;
            let g = *key_to_group.entry(key.clone()).or_insert_with(|| {
                group_seeds.push(key);
                next
            });
            self.group[v] = g;
            self.last_hops.extend(incoming[v].iter().map(|&(p, from)| (from, p)));
        }
        self.last_hop_start.push(self.last_hops.len() as u32);
        self.groups = group_seeds.len();
        let mut rows = 0u32;
        self.row = (0..n)
            .map(|v| {
                if self.nodes[v].kind == NodeKind::Switch || self.nodes[v].ports.len() > 1 {
                    rows += 1;
                    rows - 1
                } else {
                    NONE
                }
            })
            .collect();
        self.rows = rows as usize;
        check_route_entries(rows as u64, self.groups as u64)?;
        // The searches cross a switch's incoming links only towards nodes that keep a table row
        // (switches, multi-homed hosts): a host with one link relays nothing and needs no entry,
        // so its uplink is dropped from the scan (in a fabric, most links are such uplinks).
        for (v, inc) in incoming.iter_mut().enumerate() {
            if switch[v] {
                let row = &self.row;
                inc.retain(|&(_, from)| row[from as usize] != NONE);
            }
        }
        self.table = vec![NO_ROUTE; self.rows * self.groups];
        self.ecmp_sets.clear();
        self.ecmp_ports.clear();
        if self.rows == 0 {
            return Ok(());
        }
        let ctx = Search { incoming: &incoming, switch: &switch, row: &self.row, ecmp: self.ecmp_seed.is_some() };
        // The groups' searches are independent: they run on all cores, a batch at a time, each
        // writing its own slice of the table; then the batch's equal-cost sets are numbered in
        // group order, then row order, as one search after the other would (the tables are the
        // same, bit for bit, for any number of threads). A batch bounds the sets held at once
        // (~125 000 ports per group of a k = 64 fat-tree). Scoped threads, not rayon's pool: a
        // process forked after the pool started (a sweep's workers) has no pool threads, and
        // its first parallel call would wait for them forever.
        let threads = threads.unwrap_or(if self.groups >= PARALLEL_MIN_GROUPS {
            std::thread::available_parallelism().map_or(1, |t| t.get()).min(MAX_ROUTE_THREADS)
        } else {
            1
        });
        let rows = self.rows;
        let width = if ctx.ecmp { incoming.iter().map(Vec::len).max().unwrap_or(0) } else { 0 };
        let batch = route_batch_groups(threads as u64, rows as u64, width as u64) as usize;
        let mut scratch: Vec<Scratch> = (0..threads).map(|_| Scratch::new(n, rows, ctx.ecmp)).collect();
        let mut set_index: FxHashMap<Vec<PortId>, u32> = FxHashMap::default();
        for (b, chunk) in self.table.chunks_mut(batch * rows).enumerate() {
            let first = b * batch;
            let per = (chunk.len() / rows).div_ceil(threads);
            let search_part = |g0: usize, part: &mut [u32], sc: &mut Scratch| -> Vec<EqualCost> {
                part.chunks_mut(rows)
                    .enumerate()
                    .map(|(i, e)| ctx.search(g0 + i, &group_seeds[g0 + i], e, sc))
                    .collect()
            };
            let found: Vec<EqualCost> = if threads == 1 {
                search_part(first, chunk, &mut scratch[0])
            } else {
                std::thread::scope(|s| {
                    let handles: Vec<_> = chunk
                        .chunks_mut(per * rows)
                        .zip(scratch.iter_mut())
                        .enumerate()
                        .map(|(t, (part, sc))| s.spawn(move || search_part(first + t * per, part, sc)))
                        .collect();
                    handles
                        .into_iter()
                        .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                        .collect()
                })
            };
            for (i, eq) in found.iter().enumerate() {
                let base = i * rows;
                for (k, &row) in eq.rows.iter().enumerate() {
                    let set = &eq.ports[eq.starts[k] as usize..eq.starts[k + 1] as usize];
                    let id = match set_index.get(set) {
                        Some(&id) => id,
                        None => {
                            let id = self.ecmp_sets.len() as u32;
                            self.ecmp_sets.push((self.ecmp_ports.len() as u32, set.len() as u32));
                            self.ecmp_ports.extend_from_slice(set);
                            set_index.insert(set.to_vec(), id);
                            id
                        }
                    };
                    chunk[base + row as usize] = ECMP_BIT | id;
                }
            }
        }
        Ok(())
    }
}

/// What every group's route search reads (see [`Network::compute_routes`]).
struct Search<'a> {
    /// Per node: its incoming links as (port, the node it leaves), switches' only from nodes with a
    /// table row.
    incoming: &'a [Vec<(PortId, NodeId)>],
    switch: &'a [bool],
    row: &'a [u32],
    ecmp: bool,
}

/// One search's working memory, reused by the searches of one thread: `seen` holds the group that
/// last reached a node, so it needs no clearing between groups.
struct Scratch {
    seen: Vec<u32>,
    level: Vec<u32>,
    frontier: VecDeque<NodeId>,
    /// ECMP: the further equal-cost ports each row found in this search (in the order found), and
    /// the rows that found any.
    extra_of_row: Vec<Vec<PortId>>,
    touched: Vec<u32>,
}

impl Scratch {
    fn new(nodes: usize, rows: usize, ecmp: bool) -> Self {
        Scratch {
            seen: vec![NONE; nodes],
            level: vec![0; nodes],
            frontier: VecDeque::new(),
            extra_of_row: vec![Vec::new(); if ecmp { rows } else { 0 }],
            touched: Vec::new(),
        }
    }
}

/// A group's equal-cost sets, by row in increasing order: row `rows[k]`'s set is
/// `ports[starts[k]..starts[k + 1]]`, the first port found first.
#[derive(Default)]
struct EqualCost {
    rows: Vec<u32>,
    starts: Vec<u32>,
    ports: Vec<PortId>,
}

impl Search<'_> {
    /// The breadth-first search of group `g` (hosts behind `seeds`) over the reversed links:
    /// writes each row's first port found into `entries` (the group's slice of the table) and
    /// returns the rows with further equal-cost ports.
    fn search(&self, g: usize, seeds: &[NodeId], entries: &mut [u32], sc: &mut Scratch) -> EqualCost {
        let g = g as u32;
        // Distance 1: the group's neighbours reach its hosts by their last hop.
        for &s in seeds {
            sc.seen[s as usize] = g;
            sc.level[s as usize] = 1;
            if self.switch[s as usize] {
                sc.frontier.push_back(s);
            }
        }
        while let Some(v) = sc.frontier.pop_front() {
            let lv = sc.level[v as usize];
            for &(pid, from) in &self.incoming[v as usize] {
                let u = from as usize;
                if sc.seen[u] == g {
                    // Another neighbour one hop closer: an equal-cost next hop of switch u.
                    if self.ecmp && sc.level[u] == lv + 1 && self.switch[u] {
                        let row = self.row[u];
                        let found = &mut sc.extra_of_row[row as usize];
                        if found.is_empty() {
                            sc.touched.push(row);
                        }
                        found.push(pid);
                    }
                    continue;
                }
                sc.seen[u] = g;
                sc.level[u] = lv + 1;
                let row = self.row[u];
                if row != NONE {
                    entries[row as usize] = pid;
                }
                if self.switch[u] {
                    sc.frontier.push_back(u as NodeId);
                }
            }
        }
        let mut eq = EqualCost::default();
        if sc.touched.is_empty() {
            return eq;
        }
        sc.touched.sort_unstable();
        eq.starts.push(0);
        for &row in &sc.touched {
            eq.rows.push(row);
            eq.ports.push(entries[row as usize]);
            eq.ports.append(&mut sc.extra_of_row[row as usize]);
            eq.starts.push(eq.ports.len() as u32);
        }
        sc.touched.clear();
        eq
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Spec;

    #[test]
    fn route_tables_do_not_depend_on_the_number_of_threads() {
        // A k = 8 fat-tree with ECMP (32 destination groups, equal-cost sets at every tier): the
        // tables and the numbering of the sets on 1 thread and on 2, 3 and 5 (uneven splits).
        let json = include_str!("../../tests/data/fat_tree_k8_ecmp.json");
        let spec = Spec::from_json(json).expect("spec");
        let mut net = super::topology::build(&spec).expect("network");
        let snapshot = |n: &super::Network| (n.table.clone(), n.ecmp_sets.clone(), n.ecmp_ports.clone());
        net.compute_routes_on(Some(1)).unwrap();
        let one = snapshot(&net);
        assert!(!one.1.is_empty(), "the fabric has equal-cost sets");
        for t in [2, 3, 5] {
            net.compute_routes_on(Some(t)).unwrap();
            assert!(snapshot(&net) == one, "{t} threads gave other tables");
        }
    }
}
