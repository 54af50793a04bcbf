# Data-mining flow sizes (VL2, Greenberg et al. 2009), as in HKUST-SING/MQ-ECN-NS2 scripts/CDF_vl2.tcl
# (protocols.md §6, S7): sizes given there in packets of 1460 B payload, here in bytes. Half of all
# flows are a single packet. Mean 5117 packets, 7.47 MB.
# size_bytes  cumulative_probability
1460       0
1460       0.5
2920       0.6
4380       0.7
10220      0.8
389820     0.9
3076220    0.95
97333820   0.99
973333820  1.00
