//! Topology builders: the papers' dumbbell (many-to-one), the coexistence paper's single-rooted
//! tree, the DSM paper's parking lot, data-center fabrics (leaf-spine, k-ary fat-tree) and any
//! explicit graph.

use super::{Network, Port, PortId};
use crate::aqm::Aqm;
use crate::error::{invalid, Result};
use crate::packet::NodeId;
use crate::rng::{stream, Stream};
use crate::scenario::{chain_switch_name, tree_host_name, NodeKind, PortRef, QueueSpec, Spec, TierSpec, TopologySpec};
use crate::units::{Rate, Time};

struct Builder<'a> {
    spec: &'a Spec,
    net: Network,
}

impl Builder<'_> {
    fn node(&mut self, name: String, kind: NodeKind) -> NodeId {
        self.net.add_node(name, kind)
    }

    /// One egress port `from -> to`. Hosts get an unbounded drop-tail NIC queue.
    fn port(&mut self, from: NodeId, to: NodeId, rate_bps: u64, delay: Time, queue: &QueueSpec) -> Result<PortId> {
        let id = self.net.ports.len() as PortId;
        let host = self.net.nodes[from as usize].kind == NodeKind::Host;
        let q = if host { QueueSpec::unbounded() } else { queue.clone() };
        let rate = Rate(rate_bps);
        let aqm = Aqm::new(&q.aqm, self.spec.packet_bytes, rate);
        let rng = stream(self.spec.seed, Stream::Port, id as u64);
        let mut port = Port::new(from, to, rate, delay, q.capacity, aqm, rng, Time(self.spec.warmup_ps));
        if host {
            port.set_tx_jitter(self.spec.host_jitter_ps);
        }
        self.net.ports.push(port);
        self.net.nodes[from as usize].ports.push(id);
        Ok(id)
    }

    fn link(
        &mut self,
        a: NodeId,
        b: NodeId,
        rate_bps: u64,
        delay: Time,
        q_ab: &QueueSpec,
        q_ba: &QueueSpec,
    ) -> Result<(PortId, PortId)> {
        Ok((self.port(a, b, rate_bps, delay, q_ab)?, self.port(b, a, rate_bps, delay, q_ba)?))
    }

    /// A fabric link of tier `t` (the tier's queue on both ends; a host end gets its NIC queue).
    fn tier_link(&mut self, a: NodeId, b: NodeId, t: &TierSpec) -> Result<(PortId, PortId)> {
        self.link(a, b, t.rate_bps, Time(t.delay_ps), &t.queue, &t.queue)
    }
}

/// Build the network of `spec` (already validated).
pub fn build(spec: &Spec) -> Result<Network> {
    let mut b = Builder { spec, net: Network::default() };
    // The ports and nodes the topology has, allocated once: grown by doubling, the ports' vector of
    // a k = 40 fat-tree (96 000 ports of ~600 B) held 131 072 (77.6 MB for 56.8 MB), a third more
    // than the memory plan counts, in every world of a partitioned run (a probe; massif).
    let (nodes, ports) = spec.topology.size();
    b.net.ports.reserve_exact(ports as usize);
    b.net.nodes.reserve_exact(nodes as usize);
    let mut default_monitor = Vec::new();
    match &spec.topology {
        TopologySpec::Dumbbell { senders, bottleneck_bps, access_bps, rtt_ps, bottleneck_queue, reverse_queue } => {
            let n = *senders as usize;
            let rtt = |i: usize| Time(if rtt_ps.len() == 1 { rtt_ps[0] } else { rtt_ps[i] });
            let min_rtt = (0..n).map(rtt).min().unwrap_or(Time::ZERO);
            // One quarter of the smallest RTT on the bottleneck link (each way), the rest of each
            // sender's RTT on its own access link: round-trip propagation = rtt_i exactly.
            let d_bottleneck = Time(min_rtt.0 / 4);
            let senders: Vec<NodeId> = (0..n).map(|i| b.node(format!("s{i}"), NodeKind::Host)).collect();
            let sw = b.node("sw".into(), NodeKind::Switch);
            let r = b.node("r".into(), NodeKind::Host);
            let reverse = reverse_queue.clone().unwrap_or_else(|| bottleneck_queue.clone());
            let host_q = QueueSpec::unbounded();
            for (i, &s) in senders.iter().enumerate() {
                let d_access = Time(rtt(i).0 / 2 - d_bottleneck.0);
                b.link(s, sw, *access_bps, d_access, &host_q, &reverse)?;
            }
            let (bott, _) = b.link(sw, r, *bottleneck_bps, d_bottleneck, bottleneck_queue, &host_q)?;
            default_monitor.push(bott);
        }
        TopologySpec::Graph { nodes, links, ecmp_seed } => {
            b.net.ecmp_seed = *ecmp_seed;
            for n in nodes {
                b.node(n.name.clone(), n.kind);
            }
            for (i, l) in links.iter().enumerate() {
                let a = b.net.node_id(&l.a).ok_or_else(|| invalid(format!("network.links[{i}].a"), "unknown node"))?;
                let z = b.net.node_id(&l.b).ok_or_else(|| invalid(format!("network.links[{i}].b"), "unknown node"))?;
                let q = l.queue.clone().unwrap_or_else(QueueSpec::default_switch);
                let (pa, pz) = b.link(a, z, l.rate_bps, Time(l.delay_ps), &q, &q)?;
                for p in [pa, pz] {
                    let from = b.net.ports[p as usize].from;
                    if b.net.nodes[from as usize].kind == NodeKind::Switch {
                        default_monitor.push(p);
                    }
                }
            }
        }
        TopologySpec::LeafSpine { leaves, spines, hosts_per_leaf, host, leaf_spine, ecmp_seed } => {
            b.net.ecmp_seed = Some(ecmp_seed.unwrap_or(spec.seed));
            let hosts: Vec<NodeId> = (0..*leaves as u64 * *hosts_per_leaf as u64)
                .map(|i| b.node(tree_host_name(i), NodeKind::Host))
                .collect();
            let leaf: Vec<NodeId> = (0..*leaves).map(|i| b.node(format!("leaf{i}"), NodeKind::Switch)).collect();
            let spine: Vec<NodeId> = (0..*spines).map(|j| b.node(format!("spine{j}"), NodeKind::Switch)).collect();
            for (i, &h) in hosts.iter().enumerate() {
                let (_, down) = b.tier_link(h, leaf[i / *hosts_per_leaf as usize], host)?;
                if i == 0 {
                    default_monitor.push(down);
                }
            }
            for (i, &l) in leaf.iter().enumerate() {
                for &s in &spine {
                    let (up, _) = b.tier_link(l, s, leaf_spine)?;
                    if i == 0 {
                        default_monitor.push(up);
                    }
                }
            }
        }
        TopologySpec::FatTree { k, host, edge_agg, agg_core, ecmp_seed } => {
            b.net.ecmp_seed = Some(ecmp_seed.unwrap_or(spec.seed));
            let half = *k as usize / 2;
            let (edges, cores) = (*k as usize * half, half * half);
            let hosts: Vec<NodeId> =
                (0..edges * half).map(|i| b.node(tree_host_name(i as u64), NodeKind::Host)).collect();
            let edge: Vec<NodeId> = (0..edges).map(|e| b.node(format!("edge{e}"), NodeKind::Switch)).collect();
            let agg: Vec<NodeId> = (0..edges).map(|a| b.node(format!("agg{a}"), NodeKind::Switch)).collect();
            let core: Vec<NodeId> = (0..cores).map(|c| b.node(format!("core{c}"), NodeKind::Switch)).collect();
            for (i, &h) in hosts.iter().enumerate() {
                let (_, down) = b.tier_link(h, edge[i / half], host)?;
                if i == 0 {
                    default_monitor.push(down);
                }
            }
            for (e, &x) in edge.iter().enumerate() {
                let pod = e / half;
                for &a in &agg[pod * half..(pod + 1) * half] {
                    let (up, _) = b.tier_link(x, a, edge_agg)?;
                    if e == 0 {
                        default_monitor.push(up);
                    }
                }
            }
            for (a, &y) in agg.iter().enumerate() {
                let j = a % half;
                for &c in &core[j * half..(j + 1) * half] {
                    let (up, _) = b.tier_link(y, c, agg_core)?;
                    if a == 0 {
                        default_monitor.push(up);
                    }
                }
            }
        }
        TopologySpec::Tree { racks, host_bps, core_bps, bottleneck_bps, bottleneck_hosts, rtt_ps, queue } => {
            // Propagation: 8 links between hosts of different racks (4 each way), 4 within one.
            let hop = Time(if racks.len() > 1 { rtt_ps / 8 } else { rtt_ps / 4 });
            let host_q = QueueSpec::unbounded();
            let root = (racks.len() > 1).then(|| b.node("root".into(), NodeKind::Switch));
            let mut next_host = 0u64;
            let mut slow_ports = Vec::new();
            let mut switch_ports = Vec::new();
            for (r, &n) in racks.iter().enumerate() {
                let tor = b.node(format!("tor{r}"), NodeKind::Switch);
                if let Some(root) = root {
                    let (up, down) = b.link(tor, root, *core_bps, hop, queue, queue)?;
                    switch_ports.extend([up, down]);
                }
                for _ in 0..n {
                    let name = tree_host_name(next_host);
                    next_host += 1;
                    let slow = bottleneck_hosts.contains(&name);
                    let h = b.node(name, NodeKind::Host);
                    let rate = if slow { bottleneck_bps.unwrap_or(*host_bps) } else { *host_bps };
                    let (_, down) = b.link(h, tor, rate, hop, &host_q, queue)?;
                    switch_ports.push(down);
                    if slow {
                        slow_ports.push(down);
                    }
                }
            }
            // The queues towards the bottleneck hosts; without any, every switch port.
            default_monitor = if slow_ports.is_empty() { switch_ports } else { slow_ports };
        }
        TopologySpec::ParkingLot { switches, rate_bps, delay_ps, host_rate_bps, host_delay_ps, hosts, queue } => {
            let sw: Vec<NodeId> = (0..*switches).map(|i| b.node(chain_switch_name(i), NodeKind::Switch)).collect();
            for k in 1..sw.len() {
                // C_k -> C_k+1 is the forward direction: its queue is a bottleneck of the chain.
                let (fwd, _) = b.link(sw[k - 1], sw[k], *rate_bps, Time(*delay_ps), queue, queue)?;
                default_monitor.push(fwd);
            }
            let host_q = QueueSpec::unbounded();
            for (i, h) in hosts.iter().enumerate() {
                let at = b
                    .net
                    .node_id(&h.at)
                    .ok_or_else(|| invalid(format!("network.hosts[{i}].at"), format!("unknown switch {:?}", h.at)))?;
                let id = b.node(h.name.clone(), NodeKind::Host);
                b.link(id, at, *host_rate_bps, Time(*host_delay_ps), &host_q, queue)?;
            }
        }
    }
    let mut net = b.net;
    net.compute_routes()?;
    net.monitored = match &spec.metrics.monitor {
        None => default_monitor,
        Some(refs) => refs.iter().enumerate().map(|(i, r)| resolve_port(&net, r, i)).collect::<Result<_>>()?,
    };
    Ok(net)
}

fn resolve_port(net: &Network, r: &PortRef, i: usize) -> Result<PortId> {
    let field = format!("metrics.monitor[{i}]");
    let from = net.node_id(&r.from).ok_or_else(|| invalid(&field, format!("unknown node {:?}", r.from)))?;
    let to = net.node_id(&r.to).ok_or_else(|| invalid(&field, format!("unknown node {:?}", r.to)))?;
    net.port_between(from, to).ok_or_else(|| invalid(&field, format!("no link from {:?} to {:?}", r.from, r.to)))
}
