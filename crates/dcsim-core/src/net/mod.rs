//! The network: nodes (hosts and switches), store-and-forward egress ports (queue + link), and
//! shortest-path routing. `topology.rs` turns a [`TopologySpec`] into a [`Network`].

pub mod port;
pub mod topology;

use crate::packet::NodeId;
use crate::scenario::NodeKind;

pub use port::Port;

pub type PortId = u32;
const NO_ROUTE: PortId = PortId::MAX;

pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Egress ports of this node.
    pub ports: Vec<PortId>,
}

pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// next_port[node * n + dst]: the egress port of `node` towards host `dst`.
    next_port: Vec<PortId>,
    /// Ports to sample the queue of.
    pub monitored: Vec<PortId>,
}

impl Network {
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name).map(|i| i as NodeId)
    }

    pub fn port_between(&self, from: NodeId, to: NodeId) -> Option<PortId> {
        self.nodes[from as usize].ports.iter().copied().find(|&p| self.ports[p as usize].to == to)
    }

    /// Egress port of `node` on the way to `dst`, if `dst` is reachable.
    #[inline]
    pub fn route(&self, node: NodeId, dst: NodeId) -> Option<PortId> {
        let p = self.next_port[node as usize * self.nodes.len() + dst as usize];
        (p != NO_ROUTE).then_some(p)
    }

    /// Shortest-path (hop count) routes to every host, by breadth-first search from each
    /// destination over reversed links; only switches forward. Ties go to the lower port id, so
    /// routes are deterministic.
    pub fn compute_routes(&mut self) {
        let n = self.nodes.len();
        self.next_port = vec![NO_ROUTE; n * n];
        // incoming[v] = ports whose link ends at v.
        let mut incoming: Vec<Vec<PortId>> = vec![Vec::new(); n];
        for (pid, p) in self.ports.iter().enumerate() {
            incoming[p.to as usize].push(pid as PortId);
        }
        for dst in 0..n {
            if self.nodes[dst].kind != NodeKind::Host {
                continue;
            }
            let mut dist = vec![u32::MAX; n];
            dist[dst] = 0;
            let mut frontier = std::collections::VecDeque::from([dst]);
            while let Some(v) = frontier.pop_front() {
                // Only the destination itself and switches relay packets further back.
                if v != dst && self.nodes[v].kind != NodeKind::Switch {
                    continue;
                }
                for &pid in &incoming[v] {
                    let u = self.ports[pid as usize].from as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        self.next_port[u * n + dst] = pid;
                        frontier.push_back(u);
                    }
                }
            }
        }
    }
}
