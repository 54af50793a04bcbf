// The dcsim engine benchmark's scenario in ns-3: N DCTCP senders, 40 Gbps access links, a switch,
// a 10 Gbps bottleneck to one receiver, 25 us per link (RTT 100 us), K = 65 pkt (RED with
// MinTh = MaxTh = K, QW = 1, not gentle: instantaneous-queue marking at K, over a one-packet
// device queue; no queue discipline elsewhere), 1000-packet buffer, g = 1/16,
// MSS 1460 B, an ACK per segment (--delack=2: ns-3's default delayed ACK), no SACK and no
// timestamps (--sack=1, --timestamps=1: ns-3's defaults), as the engine's ns2 profile; min RTO
// 10 ms. Prints, as one JSON
// line, Simulator::Run's wall time (setup excluded), the receiver's goodput and the queue's CE
// marks and drops. Built and run by benchmarks/bench_ns3.py; --n, --duration (simulated s).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <chrono>
#include <cstdio>

using namespace ns3;

int main(int argc, char* argv[]) {
    uint32_t n = 10;
    double dur = 1.0;
    uint32_t delack = 1;
    bool sack = false;
    bool timestamps = false;
    CommandLine cmd;
    cmd.AddValue("n", "senders", n);
    cmd.AddValue("duration", "simulated seconds", dur);
    cmd.AddValue("delack", "segments per ACK", delack);
    cmd.AddValue("sack", "SACK (ns-3's default: on; the engine's ns2 profile: off)", sack);
    cmd.AddValue("timestamps", "TCP timestamps (ns-3's default: on; the ns2 profile: off)", timestamps);
    cmd.Parse(argc, argv);
    const double K = 65;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delack));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(10)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(1500));
    Config::SetDefault("ns3::RedQueueDisc::MaxSize", QueueSizeValue(QueueSize("1000p")));
    Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(1.0));
    Config::SetDefault("ns3::RedQueueDisc::MinTh", DoubleValue(K));
    Config::SetDefault("ns3::RedQueueDisc::MaxTh", DoubleValue(K));
    // Not gentle: with MinTh = MaxTh = K every arrival at a queue >= K is marked (gentle RED, the
    // default, would mark at random between K and 2 K).
    Config::SetDefault("ns3::RedQueueDisc::Gentle", BooleanValue(false));

    NodeContainer senders, sw, rcv;
    senders.Create(n);
    sw.Create(1);
    rcv.Create(1);
    PointToPointHelper access, bott;
    access.SetDeviceAttribute("DataRate", StringValue("40Gbps"));
    access.SetChannelAttribute("Delay", StringValue("25us"));
    bott.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    bott.SetChannelAttribute("Delay", StringValue("25us"));
    InternetStackHelper stack;
    stack.InstallAll();
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedQueueDisc", "LinkBandwidth", StringValue("10Gbps"), "LinkDelay", StringValue("25us"));
    Ipv4AddressHelper addr;
    // Only the bottleneck has a queue discipline (the marking one); the other devices keep just
    // their device queue, as the engine's ports (Assign would give each the default FqCoDel).
    TrafficControlHelper none;
    for (uint32_t i = 0; i < n; i++) {
        NetDeviceContainer d = access.Install(senders.Get(i), sw.Get(0));
        char base[32];
        std::snprintf(base, sizeof base, "10.%u.%u.0", 1 + i / 256, i % 256);
        addr.SetBase(base, "255.255.255.0");
        addr.Assign(d);
        none.Uninstall(d);
    }
    NetDeviceContainer db = bott.Install(sw.Get(0), rcv.Get(0));
    QueueDiscContainer qd = tch.Install(db.Get(0));
    addr.SetBase("10.200.0.0", "255.255.255.0");
    Ipv4InterfaceContainer rif = addr.Assign(db);
    none.Uninstall(db.Get(1));
    // The bottleneck's device queue holds one packet, so that the 1 000-packet buffer and the
    // marking at K are RED's (a 100-packet device queue would sit below it).
    DynamicCast<PointToPointNetDevice>(db.Get(0))->GetQueue()->SetMaxSize(QueueSize("1p"));
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    uint16_t port = 5000;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sapp = sink.Install(rcv.Get(0));
    sapp.Start(Seconds(0.0));
    for (uint32_t i = 0; i < n; i++) {
        BulkSendHelper bs("ns3::TcpSocketFactory", InetSocketAddress(rif.GetAddress(1), port));
        bs.SetAttribute("MaxBytes", UintegerValue(0));
        bs.SetAttribute("SendSize", UintegerValue(1460));
        bs.Install(senders.Get(i)).Start(Seconds(0.0));
    }
    Simulator::Stop(Seconds(dur));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t rx = DynamicCast<PacketSink>(sapp.Get(0))->GetTotalRx();
    QueueDisc::Stats st = qd.Get(0)->GetStats();
    std::printf("{\"run_s\": %.4f, \"rx_bytes\": %lu, \"goodput_bps\": %.6e, \"marks\": %u, \"drops\": %u}\n", run_s,
                (unsigned long)rx, rx * 8.0 / dur,
                st.GetNMarkedPackets(RedQueueDisc::UNFORCED_MARK) + st.GetNMarkedPackets(RedQueueDisc::FORCED_MARK),
                st.nTotalDroppedPackets);
    Simulator::Destroy();
    return 0;
}
