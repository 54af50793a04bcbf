//! The network: nodes (hosts and switches), store-and-forward egress ports (queue + link), and
//! shortest-path routing. `topology.rs` turns a [`TopologySpec`](crate::scenario::TopologySpec)
//! into a [`Network`].
//!
//! Routing state is O(nodes + links): only nodes that choose between several ports (switches,
//! and hosts with more than one link) keep a table, and it is indexed by *destination group*,
//! the hosts that hang off the same set of neighbours (one group for a whole dumbbell, one per
//! rack of a fabric), not by host. The last hop to a host is found from the host's own (few)
//! incoming links. Node names are looked up through a hash map.

pub mod port;
pub mod topology;

use std::collections::{HashMap, VecDeque};

use crate::error::{invalid, Result};
use crate::packet::NodeId;
use crate::scenario::NodeKind;

/// Most routing-table entries a network may need (4 bytes each: 256 MiB).
pub const MAX_ROUTE_ENTRIES: u64 = 1 << 26;

pub use port::Port;

pub type PortId = u32;
const NO_ROUTE: PortId = PortId::MAX;
const NONE: u32 = u32::MAX;

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
    /// Per host node: the ports whose link ends at it (the last hop towards it).
    last_hops: Vec<Vec<PortId>>,
    /// Per node: its row in `table` (switches and multi-homed hosts; NONE for hosts with one link).
    row: Vec<u32>,
    groups: usize,
    /// table[row * groups + group]: the egress port towards that group, or NO_ROUTE.
    table: Vec<PortId>,
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

    /// Egress port of `node` on the way to host `dst`, if `dst` is reachable.
    #[inline]
    pub fn route(&self, node: NodeId, dst: NodeId) -> Option<PortId> {
        let d = dst as usize;
        for &p in &self.last_hops[d] {
            if self.ports[p as usize].from == node {
                return Some(p);
            }
        }
        let row = self.row[node as usize];
        if row != NONE {
            let p = self.table[row as usize * self.groups + self.group[d] as usize];
            return (p != NO_ROUTE).then_some(p);
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
    /// and ports in id order, so routes are deterministic.
    pub fn compute_routes(&mut self) -> Result<()> {
        let n = self.nodes.len();
        let mut incoming: Vec<Vec<PortId>> = vec![Vec::new(); n];
        for (pid, p) in self.ports.iter().enumerate() {
            incoming[p.to as usize].push(pid as PortId);
        }
        // Destination groups: hosts with the same set of upstream neighbours.
        let mut key_to_group: HashMap<Vec<NodeId>, u32> = HashMap::new();
        let mut group_seeds: Vec<Vec<NodeId>> = Vec::new();
        self.group = vec![NONE; n];
        self.last_hops = vec![Vec::new(); n];
        for v in 0..n {
            if self.nodes[v].kind != NodeKind::Host {
                continue;
            }
            let mut key: Vec<NodeId> = incoming[v].iter().map(|&p| self.ports[p as usize].from).collect();
            key.sort_unstable();
            key.dedup();
            let next = group_seeds.len() as u32;
            let g = *key_to_group.entry(key.clone()).or_insert_with(|| {
                group_seeds.push(key);
                next
            });
            self.group[v] = g;
            self.last_hops[v] = incoming[v].clone();
        }
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
        self.table = vec![NO_ROUTE; entries as usize];
        let mut seen = vec![NONE; n];
        let mut frontier = VecDeque::new();
        for (g, seeds) in group_seeds.iter().enumerate() {
            // Distance 1: the group's neighbours reach its hosts by their last hop.
            for &s in seeds {
                seen[s as usize] = g as u32;
                if self.nodes[s as usize].kind == NodeKind::Switch {
                    frontier.push_back(s);
                }
            }
            while let Some(v) = frontier.pop_front() {
                for &pid in &incoming[v as usize] {
                    let u = self.ports[pid as usize].from as usize;
                    if seen[u] == g as u32 {
                        continue;
                    }
                    seen[u] = g as u32;
                    let row = self.row[u];
                    if row != NONE {
                        self.table[row as usize * self.groups + g] = pid;
                    }
                    if self.nodes[u].kind == NodeKind::Switch {
                        frontier.push_back(u as NodeId);
                    }
                }
            }
        }
        Ok(())
    }
}
