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
    /// before it), the first found first. Cost: O(groups x (nodes + links)).
    pub fn compute_routes(&mut self) -> Result<()> {
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
        let entries = rows as u64 * self.groups as u64;
        if entries > MAX_ROUTE_ENTRIES {
            return Err(invalid(
                "network",
                format!(
                    "routing needs {rows} tables x {} destination groups = {entries} entries, more than the maximum \
                     {MAX_ROUTE_ENTRIES} (hosts that share their switches share a group: attach hosts to fewer switches)",
                    self.groups
                ),
            ));
        }
        // The searches cross a switch's incoming links only towards nodes that keep a table row
        // (switches, multi-homed hosts): a host with one link relays nothing and needs no entry,
        // so its uplink is dropped from the scan (in a fabric, most links are such uplinks).
        for (v, inc) in incoming.iter_mut().enumerate() {
            if switch[v] {
                let row = &self.row;
                inc.retain(|&(_, from)| row[from as usize] != NONE);
            }
        }
        self.table = vec![NO_ROUTE; entries as usize];
        self.ecmp_sets.clear();
        self.ecmp_ports.clear();
        let ecmp = self.ecmp_seed.is_some();
        let mut seen = vec![NONE; n];
        let mut level = vec![0u32; n];
        let mut frontier = VecDeque::new();
        // ECMP: the further equal-cost ports each switch's row found in this group's search (in the
        // order found), the rows that found any, and the distinct sets so far. A set is looked up
        // by slice and allocated only when new (a k = 64 fat-tree's search finds ~125 000 such
        // ports per destination group, 2 048 groups).
        let mut extra_of_row: Vec<Vec<PortId>> = vec![Vec::new(); if ecmp { rows as usize } else { 0 }];
        let mut touched: Vec<u32> = Vec::new();
        let mut set: Vec<PortId> = Vec::new();
        let mut set_index: FxHashMap<Vec<PortId>, u32> = FxHashMap::default();
        for (g, seeds) in group_seeds.iter().enumerate() {
            // Distance 1: the group's neighbours reach its hosts by their last hop.
            for &s in seeds {
                seen[s as usize] = g as u32;
                level[s as usize] = 1;
                if switch[s as usize] {
                    frontier.push_back(s);
                }
            }
            while let Some(v) = frontier.pop_front() {
                let lv = level[v as usize];
                for &(pid, from) in &incoming[v as usize] {
                    let u = from as usize;
                    if seen[u] == g as u32 {
                        // Another neighbour one hop closer: an equal-cost next hop of switch u.
                        if ecmp && level[u] == lv + 1 && switch[u] {
                            let row = self.row[u];
                            let found = &mut extra_of_row[row as usize];
                            if found.is_empty() {
                                touched.push(row);
                            }
                            found.push(pid);
                        }
                        continue;
                    }
                    seen[u] = g as u32;
                    level[u] = lv + 1;
                    let row = self.row[u];
                    if row != NONE {
                        self.table[g * self.rows + row as usize] = pid;
                    }
                    if switch[u] {
                        frontier.push_back(u as NodeId);
                    }
                }
            }
            if touched.is_empty() {
                continue;
            }
            // Entries in order (by row: the group is fixed), each entry's ports in the order found.
            touched.sort_unstable();
            for &row in &touched {
                let e = g * self.rows + row as usize;
                set.clear();
                set.push(self.table[e]);
                set.append(&mut extra_of_row[row as usize]);
                let id = match set_index.get(set.as_slice()) {
                    Some(&id) => id,
                    None => {
                        let id = self.ecmp_sets.len() as u32;
                        self.ecmp_sets.push((self.ecmp_ports.len() as u32, set.len() as u32));
                        self.ecmp_ports.extend_from_slice(&set);
                        set_index.insert(set.clone(), id);
                        id
                    }
                };
                self.table[e] = ECMP_BIT | id;
            }
            touched.clear();
        }
        Ok(())
    }
}
