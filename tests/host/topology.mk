# tests/host/topology.mk: the APIC id field widths on AMD without leaf 0xb
# (arch/x86_64/topology_bits.c, tests/host/test_topology.c); included by
# tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_topology

$(BUILD)/test_topology: test_topology.c ktest.h $(ROOT)/arch/x86_64/topology_bits.c $(ROOT)/arch/x86_64/topology.h
	@mkdir -p $(BUILD)
	$(CC) $(HOST_CFLAGS) -I$(ROOT) -I$(ROOT)/arch/x86_64/include -o $@ test_topology.c $(ROOT)/arch/x86_64/topology_bits.c
