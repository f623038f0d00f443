// SPDX-License-Identifier: GPL-2.0
/*
 * kinsn.c - a QEMU TCG plugin: instructions executed per vCPU, kernel and
 * user, and for the kernel's, which node's memory they were fetched from.
 *
 * Built against QEMU 7.2's plugin API (version 1). Debian ships no
 * qemu-plugin.h, so the few types and functions used are declared below,
 * as that version defines them.
 *
 * Arguments (-plugin kinsn.so,ARG=VALUE,...):
 *   out=FILE     where the counts go (default: QEMU's log, stderr)
 *   mem=PREFIX   guest RAM of node N is the file PREFIXN (QEMU's
 *                memory-backend-file): fetches are attributed to nodes by
 *                the host address of the instruction. Without it, every
 *                fetch counts as node "other".
 *
 * Windows: the guest executes HINT #126 (start) and HINT #127 (stop), at
 * EL0 or EL1, both no-ops architecturally; at each stop the plugin writes
 * one line per vCPU with the instructions executed since the last start.
 * At exit it writes the totals since power-on as window "total".
 *
 * Output lines (one per vCPU and window):
 *   kinsn WINDOW VCPU user=U kernel=K node0=N0 node1=N1 ... other=O
 * where N0 + N1 + ... + O = K.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU 7.2 plugin API, version 1 (include/qemu/qemu-plugin.h) ---- */
typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
/* ---- end of the API declarations ---- */

#define MAX_NODES	8
#define MAX_VCPUS	512
#define OTHER		MAX_NODES	/* fetched from no node's file */
#define HINT(n)		(0xd503201fu | ((n) << 5))
#define MARK_START	HINT(126)
#define MARK_STOP	HINT(127)

struct counts {
	uint64_t user;
	uint64_t node[MAX_NODES + 1];	/* kernel instructions by source */
};

/* what one translated block adds when it runs */
struct tb_info {
	bool kernel;
	uint32_t n[MAX_NODES + 1];	/* kernel: by node; user: n[0] */
};

static struct counts now[MAX_VCPUS], at_start[MAX_VCPUS];
static unsigned int nr_vcpus, nr_nodes;
static int windows;
static FILE *out;
static const char *mem_prefix;

/* host ranges of each node's RAM file, read from /proc/self/maps */
static struct {
	uintptr_t start, end;
	int node;
} ranges[64];
static int nr_ranges;
static bool ranges_read;

static void read_ranges(void)
{
	char line[4096];
	size_t plen = strlen(mem_prefix);
	FILE *f = fopen("/proc/self/maps", "r");

	ranges_read = true;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nr_ranges < 64) {
		unsigned long s, e;
		char *path = strchr(line, '/');
		char *nl;
		int node;

		if (!path || sscanf(line, "%lx-%lx", &s, &e) != 2)
			continue;
		nl = strchr(path, '\n');
		if (nl)
			*nl = 0;
		if (strncmp(path, mem_prefix, plen) != 0)
			continue;
		node = atoi(path + plen);
		if (node < 0 || node >= MAX_NODES)
			continue;
		ranges[nr_ranges].start = s;
		ranges[nr_ranges].end = e;
		ranges[nr_ranges].node = node;
		nr_ranges++;
		if ((unsigned int)node + 1 > nr_nodes)
			nr_nodes = node + 1;
	}
	fclose(f);
}

static int node_of(void *haddr)
{
	uintptr_t h = (uintptr_t)haddr;
	int i;

	if (!mem_prefix || !haddr)
		return OTHER;
	if (!ranges_read)
		read_ranges();
	for (i = 0; i < nr_ranges; i++)
		if (h >= ranges[i].start && h < ranges[i].end)
			return ranges[i].node;
	return OTHER;
}

static void tb_exec(unsigned int vcpu, void *udata)
{
	struct tb_info *t = udata;
	struct counts *c;
	int i;

	if (vcpu >= MAX_VCPUS)
		return;
	if (vcpu + 1 > nr_vcpus)
		nr_vcpus = vcpu + 1;
	c = &now[vcpu];
	if (!t->kernel) {
		c->user += t->n[0];
		return;
	}
	for (i = 0; i <= MAX_NODES; i++)
		c->node[i] += t->n[i];
}

static void dump(const char *window, struct counts *base)
{
	char line[512];
	unsigned int v, i;

	for (v = 0; v < nr_vcpus; v++) {
		uint64_t k = 0;
		int len;

		for (i = 0; i <= MAX_NODES; i++)
			k += now[v].node[i] - (base ? base[v].node[i] : 0);
		len = snprintf(line, sizeof(line), "kinsn %s %u user=%llu kernel=%llu",
			       window, v,
			       (unsigned long long)(now[v].user - (base ? base[v].user : 0)),
			       (unsigned long long)k);
		for (i = 0; i < nr_nodes; i++)
			len += snprintf(line + len, sizeof(line) - len, " node%u=%llu", i,
					(unsigned long long)(now[v].node[i] -
							     (base ? base[v].node[i] : 0)));
		snprintf(line + len, sizeof(line) - len, " other=%llu\n",
			 (unsigned long long)(now[v].node[OTHER] -
					      (base ? base[v].node[OTHER] : 0)));
		if (out)
			fputs(line, out);
		else
			qemu_plugin_outs(line);
	}
	if (out)
		fflush(out);
}

/* the guest's markers: all vCPUs' counts at that moment */
static void mark_start(unsigned int vcpu, void *udata)
{
	memcpy(at_start, now, sizeof(now));
}

static void mark_stop(unsigned int vcpu, void *udata)
{
	char name[16];

	snprintf(name, sizeof(name), "%d", windows++);
	dump(name, at_start);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct tb_info *t;

	if (!n)
		return;
	t = calloc(1, sizeof(*t));
	if (!t)
		abort();
	/* bit 55 selects TTBR1: the kernel's half, whatever the VA size */
	t->kernel = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)) & (1ULL << 55);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t op = 0;

		/*
		 * Instructions are counted whole blocks at a time, when a block
		 * starts: a window includes the rest of its start marker's block
		 * and all of its stop marker's, a constant that runs of N and 2N
		 * operations cancel.
		 */
		if (t->kernel)
			t->n[node_of(qemu_plugin_insn_haddr(insn))]++;
		else
			t->n[0]++;
		if (qemu_plugin_insn_size(insn) == 4)
			memcpy(&op, qemu_plugin_insn_data(insn), 4);
		if (op == MARK_START || op == MARK_STOP)
			qemu_plugin_register_vcpu_insn_exec_cb(insn,
							       op == MARK_START ? mark_start : mark_stop,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	dump("total", NULL);
	if (out)
		fclose(out);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = fopen(argv[i] + 4, "w");
			if (!out) {
				fprintf(stderr, "kinsn: cannot write %s\n", argv[i] + 4);
				return -1;
			}
		} else if (!strncmp(argv[i], "mem=", 4)) {
			mem_prefix = strdup(argv[i] + 4);
		} else {
			fprintf(stderr, "kinsn: unknown argument %s (out=FILE, mem=PREFIX)\n",
				argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
