#!/usr/bin/env python3
"""tests/report_test.py: tests of tools/report.py over a fixture log of
made-up benchmark rows (tests/runner-fixtures/report-fixture.log; its
numbers are not measurements).  The report must hold the goal table, the
read-side matrix and a table per row name; with gnuplot it must produce
the PNG plots, without it say that they were skipped.

    python3 -m unittest tests/report_test.py       (from the repo root)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import benchrows  # noqa: E402
import report  # noqa: E402

FIXTURE = os.path.join(HERE, "runner-fixtures", "report-fixture.log")
PLOTS = ("readside-cpus", "readside-cslen", "refcnt-cpus", "refcnt-cslen",
         "gp-latency", "timeline")
NO_PAPER_DATA = ("gp-latency", "timeline")   # the article has no numbers


def paper_dir(tmp):
    """The article's data, which the repository carries (docs/paper-data)."""
    found = report.find_paper_data()
    assert found, "docs/paper-data missing"
    return found


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "report")
        self.paper = paper_dir(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def run_report(self, *extra):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "report.py"),
                            FIXTURE, "--out", self.out, "--paper-data", self.paper,
                            "--peer", "none", *extra],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(self.out, "report.md")) as f:
            return f.read()

    def test_tables(self):
        md = self.run_report("--gnuplot", "none")
        self.assertIn("**rcukern under QEMU TCG**", md)
        self.assertIn("**2007 Linux, 16-CPU 3GHz x86**", md)
        # The goals, computed from the rows (fixture: rwlock 393.22 / 2.00).
        self.assertIn("| rwlock / rcu-sched at 16 CPUs | >= 100x | 196.6x", md)
        self.assertIn("| refcnt / rcu-sched at 16 CPUs | >= 10x | 63.3x", md)
        # The matrix and one table per row name, with every row.
        self.assertIn("| type | 1 CPU | 2 CPUs | 4 CPUs | 8 CPUs | 16 CPUs |", md)
        self.assertIn("| rwlock | 60 ± 3, median 60 (net 59) |", md)
        for name, n in (("readside", 65), ("gp", 10), ("ipi", 1), ("ctxsw", 1),
                        ("nmi_profile", 1), ("gc_inflight", 1), ("refcnt", 10),
                        ("timeline", 39)):
            self.assertIn(f"### name={name} ({n} row", md)
        self.assertIn("| type | cpus | cs_ns | ns_per_op | stddev | runs | "
                      "median_ns | host_gaps |", md)
        self.assertIn("| rwlock | 16 | 0 | 393.22 | 19.66 | 5 | 393.22 | 0 |", md)
        self.assertIn("| cpus | max_kib | mean_kib |", md)   # a row of its own shape
        self.assertIn("Plots skipped: gnuplot was not found", md)
        self.assertFalse(any(f.endswith(".png") for f in os.listdir(self.out)))

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot is not installed")
    def test_plots(self):
        md = self.run_report()
        for name in PLOTS:
            png = os.path.join(self.out, name + ".png")
            self.assertTrue(os.path.isfile(png), name)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)
            self.assertIn(f"({name}.png)", md)
            with open(os.path.join(self.out, name + ".gp")) as f:
                gp = f.read()
            if name not in NO_PAPER_DATA:
                self.assertIn("2007 Linux, 16-CPU 3GHz x86", gp, name)
            self.assertIn("rcukern under QEMU TCG", gp, name)
        with open(os.path.join(self.out, "readside-cpus.gp")) as f:
            gp = f.read()
        self.assertIn("set logscale y", gp)
        self.assertIn("yerrorlines", gp)
        # paper_refcnt's rows are drawn beside the bare counters.
        with open(os.path.join(self.out, "refcnt-cpus.gp")) as f:
            self.assertIn("refcnt (paper_refcnt)", f.read())
        # The timeline: one panel per type; the sections that saw the old
        # value, those that saw the new one, and the updater.
        with open(os.path.join(self.out, "timeline.gp")) as f:
            gp = f.read()
        self.assertIn("set multiplot layout 2,1", gp)
        with open(FIXTURE) as f:
            want = len(re.findall(r"type=rwlock who=reader\d+ .*saw=old", f.read()))
        self.assertGreater(want, 0)
        with open(os.path.join(self.out, "data", "timeline-rwlock-old.dat")) as f:
            self.assertEqual(len(f.read().splitlines()), 1 + want)   # + header
        self.assertIn("orange saw the old value", md)
        # A legend in every panel, and a short section drawn at least
        # 0.4% of its panel's span wide.
        self.assertEqual(gp.count("keyentry"), 2 * 4)
        self.assertIn("title 'saw the old value'".replace("'", '"'), gp)
        from report.timeline import TimelinePlot
        rows, _ = report.read_log(
            "# bench name=timeline type=rcu-sched who=updater start_ns=0 commit_ns=100 end_ns=800000000 saw=update\n"
            "# bench name=timeline type=rcu-sched who=reader1 start_ns=1000 end_ns=3000 saw=old\n")
        data = os.path.join(self.tmp.name, "tl-data")
        os.makedirs(data)
        TimelinePlot(rows, "x").script("png", data)
        with open(os.path.join(data, "timeline-rcu-sched-old.dat")) as f:
            x0, y, dx, _ = map(float, f.read().splitlines()[1].split())
        self.assertAlmostEqual(dx, 800 * 0.004, places=3)    # ms: 3.2, not 0.002
        # A panel of 83 ms is in ms (tick labels 0..90, not 0..90000), and
        # a margin both sides: a last short section is not cut by the border.
        rows, _ = report.read_log(
            "# bench name=timeline type=rcu-sched who=updater start_ns=0 commit_ns=100 end_ns=83000000 saw=update\n"
            "# bench name=timeline type=rcu-sched who=reader1 start_ns=1000 end_ns=3000 saw=old\n")
        gp = TimelinePlot(rows, "x").script("png", data)
        self.assertIn("set xlabel 'ms from the start of the update'", gp)
        self.assertIn("set offsets graph 0.02, graph 0.02, 0, 0", gp)

    def test_platform_labels(self):
        self.assertEqual(report.platform_label(["hardware Intel i7-8650U"]),
                         "rcukern on a real PC")
        self.assertEqual(report.platform_label(["qemu tcg"]), "rcukern under QEMU TCG")
        self.assertEqual(report.platform_label(["qemu kvm"]), "rcukern under QEMU KVM")
        self.assertEqual(report.platform_label([], ran_qemu=True),
                         "rcukern under QEMU TCG")
        self.assertIn("not stated", report.platform_label([]))

    def test_rows_and_goals_from_text(self):
        rows, plat = report.read_log(
            "[c0] boot\n# platform: hardware\n"
            "    # bench name=readside type=rcu-sched cpus=16 cs_ns=0 ns_per_op=5 stddev=0 runs=3\n"
            "# bench name=readside type=rwlock cpus=16 cs_ns=0 ns_per_op=50 stddev=1 runs=3\n"
            "# bench nonsense\n")
        self.assertEqual(plat, ["hardware"])
        self.assertEqual(len(rows), 2)
        text = "\n".join(report.goals(rows))
        self.assertIn("10.0x (50 / 5 ns) | - | - | NOT met (mean)", text)   # under 100x
        self.assertIn("refcnt / rcu-sched at 16 CPUs | >= 10x | - | - | - | - |", text)

    def test_rows_as_the_runner_reads_them(self):
        # A serial log holds NULs, BELs, tabs and bare-CR redraws; the
        # report must read the same rows as the runner's bench.txt.
        text = ("\x1b[0m[c0] boot\x00\n"
                "# bench name=readside type=rcu\x07 cpus=2\tns_per_op=5 runs=3\n"
                "# platform: qemu\x00 tcg\n"
                "# bench name=gp type=old cpus=1\r# bench name=gp type=new cpus=1\n")
        rows, plat = report.read_log(text)
        lines = benchrows.clean_lines(text)
        self.assertEqual([" ".join(f"{k}={v}" for k, v in r.items()) for r in rows],
                         [" ".join(x.split()) for x in benchrows.bench_rows(lines)])
        self.assertEqual(plat, benchrows.platform_lines(lines))
        self.assertEqual(rows[0]["type"], "rcu")
        self.assertEqual([r["type"] for r in rows[1:]], ["new"])

    def test_verdict_uses_the_median(self):
        # A host outlier inflates the rwlock mean past 100x; the medians
        # say 10x, and the verdict follows them.
        rows, _ = report.read_log(
            "# bench name=readside type=rcu-sched cpus=4 cs_ns=0 ns_per_op=5 stddev=0 runs=3 median_ns=5\n"
            "# bench name=readside type=rwlock cpus=4 cs_ns=0 ns_per_op=900 stddev=1500 runs=3 median_ns=50\n")
        text = "\n".join(report.goals(rows))
        self.assertIn("| 180.0x (900 / 5 ns) | 10.0x (50 / 5 ns) | - | NOT met (median) |", text)

    def test_verdict_uses_the_batch_median(self):
        # The medians of whole runs still carry host time; the batch
        # medians say 200x, and the verdict follows them.
        rows, _ = report.read_log(
            "# bench name=readside type=rcu-sched cpus=16 cs_ns=0 ns_per_op=50 stddev=0 runs=3 median_ns=50 batch_ns=5\n"
            "# bench name=readside type=rwlock cpus=16 cs_ns=0 ns_per_op=900 stddev=1 runs=3 median_ns=900 batch_ns=1000\n")
        text = "\n".join(report.goals(rows))
        self.assertIn("| 18.0x (900 / 50 ns) | 18.0x (900 / 50 ns) | 200.0x (1000 / 5 ns) | met (batch median) |", text)

    def test_indistinguishable_is_two_sided(self):
        # rcu-nonpreempt 0.15 ns faster than the empty loop, each row
        # spread 0.08 ns: within noise (2 * sqrt(0.08^2 + 0.08^2) = 0.23),
        # met.  0.5 ns faster or slower: NOT met, either way.
        def verdict(np_median):
            rows, _ = report.read_log(
                "# bench name=readside type=empty cpus=4 cs_ns=0 ns_per_op=2 stddev=0.08 runs=5 median_ns=2.00\n"
                f"# bench name=readside type=rcu-nonpreempt cpus=4 cs_ns=0 ns_per_op=2 stddev=0.08 runs=5 median_ns={np_median}\n")
            line = [x for x in report.goals(rows) if "indistinguishable" in x][0]
            return line.split(" | ")[-2]
        self.assertEqual(verdict(1.85), "met (median)")
        self.assertEqual(verdict(2.15), "met (median)")
        self.assertEqual(verdict(1.5), "NOT met (median)")
        self.assertEqual(verdict(2.5), "NOT met (median)")

    def test_gp_ratio_goal_is_the_reports(self):
        # The row has no goal= met= keys: the report states the goal, for
        # load=idle only.
        rows, _ = report.read_log(
            "# bench name=gp_ratio cpus=4 normal_over_expedited=10048.6 of=median min_ratio=2654.5 load=idle\n"
            "# bench name=gp_ratio cpus=4 normal_over_expedited=3.0 of=median min_ratio=6.1 load=busy\n"
            "# bench name=gp_ratio cpus=2 normal_over_expedited=12.0 of=median min_ratio=6.1 load=idle\n")
        text = "\n".join(report.gp_ratio_table(rows))
        self.assertIn("| 4 | idle | 10049x | 2654x | >= 20x | met |", text)
        self.assertIn("| 4 | busy | 3x | 6.1x | none | - (expedited must IPI the busy CPUs) |", text)
        self.assertIn("| 2 | idle | 12x | 6.1x | >= 20x | NOT met |", text)
        self.assertIn("reported, not asserted", text)

    def test_gp_busy_goal_in_ticks(self):
        # Over the goal in jiffies but within it in the slowest vCPU's
        # ticks: host-bound; over in both: not met; idle rows: no line.
        rows, _ = report.read_log(
            "# bench name=gp type=normal cpus=16 n=8 min_ns=1 mean_ns=2 max_ns=3 median_ns=711233031 gp_ticks=4 gp_ticks_max=20 fewest_cpu_ticks=1 load=busy\n"
            "# bench name=gp type=normal cpus=4 n=30 min_ns=1 mean_ns=2 max_ns=3 median_ns=1100000 gp_ticks=1 gp_ticks_max=3 fewest_cpu_ticks=1 load=busy\n"
            "# bench name=gp type=normal cpus=2 n=30 min_ns=1 mean_ns=2 max_ns=3 median_ns=9000000 gp_ticks=9 gp_ticks_max=9 fewest_cpu_ticks=8 load=busy\n"
            "# bench name=gp type=normal cpus=2 n=30 min_ns=1 mean_ns=2 max_ns=3 median_ns=9000 gp_ticks=0 gp_ticks_max=0 fewest_cpu_ticks=0 load=idle\n")
        text = "\n".join(report.gp_busy_table(rows))
        self.assertIn("| 16 | 711 | 4 (max 20) | 1 | <= 2 ticks | met in the slowest vCPU's ticks (host-bound) |", text)
        self.assertIn("| 4 | 1.1 | 1 (max 3) | 1 | <= 2 ticks | met |", text)
        self.assertIn("| 2 | 9 | 9 (max 9) | 8 | <= 2 ticks | NOT met |", text)
        self.assertEqual(text.count("\n| "), 3)

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot is not installed")
    def test_a_plot_without_its_points_is_skipped_with_the_reason(self):
        # Only cs_ns=0 rows: no critical-section-length curve to draw.  The
        # cslen figures are skipped, the report and stderr say why, and a
        # PNG of an earlier log is not left beside the report.
        log = os.path.join(self.tmp.name, "zero.log")
        with open(log, "w") as f:
            for t in ("rcu-sched", "rwlock", "refcnt"):
                for c in (1, 4):
                    f.write(f"# bench name=readside type={t} cpus={c} cs_ns=0 "
                            "ns_per_op=5 stddev=0.1 runs=3\n")
            f.write("# bench name=gp type=normal cpus=4 n=3 min_ns=9 mean_ns=10 max_ns=20\n")
        os.makedirs(self.out)
        stale = os.path.join(self.out, "readside-cslen.png")
        open(stale, "w").close()
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "report.py"),
                            log, "--out", self.out, "--paper-data", self.paper,
                            "--peer", "none"], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.out, "report.md")) as f:
            md = f.read()
        for name in ("readside-cslen", "refcnt-cslen"):
            self.assertIn(f"report: {name}.png not drawn: the log has one "
                          "critical-section length", p.stderr)
            self.assertIn(f"- {name}.png (", md)
            self.assertFalse(os.path.exists(os.path.join(self.out, name + ".png")))
        self.assertIn("not drawn: the log has one critical-section length of "
                      "rcukern's to draw a curve of", md)
        # The CPU-count figures share one log2 axis with a margin, so that a
        # log of one CPU count (gp: 4) is not drawn on the border.
        for name in ("readside-cpus", "refcnt-cpus", "gp-latency"):
            with open(os.path.join(self.out, name + ".gp")) as f:
                gp = f.read()
            self.assertIn("set logscale x 2\nset xrange [0.7:", gp, name)
        self.assertTrue(os.path.isfile(os.path.join(self.out, "gp-latency.png")))

    def test_a_figure_of_the_article_alone_is_skipped(self):
        # A test=rcu log has grace-period rows only: readside-cpus and
        # refcnt-cpus would show the article's 2007 curves alone, as if
        # measured by this run.  They are skipped with the reason; with a
        # row of the Linux peer the read-side figure is drawn.
        log = os.path.join(self.tmp.name, "gp.log")
        with open(log, "w") as f:
            f.write("# bench name=gp type=normal cpus=4 n=3 min_ns=9 mean_ns=10 max_ns=20 "
                    "median_ns=10\n")
        peer = os.path.join(self.tmp.name, "peer.txt")
        with open(peer, "w") as f:
            f.write("# bench name=linux_readside model=preempt type=rcu cpus=4 vcpus=4 "
                    "ns_per_op=2.3 median_ns=2.2\n")
        os.makedirs(self.out)
        for name in ("readside-cpus-batch", "readside-cslen-batch", "refcnt-cpus"):
            for ext in (".png", ".gp"):     # an earlier log's
                open(os.path.join(self.out, name + ext), "w").close()
        for peer_arg, drawn in (("none", False), (peer, True)):
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "report.py"),
                                log, "--out", self.out, "--paper-data", self.paper,
                                "--peer", peer_arg, "--gnuplot",
                                shutil.which("gnuplot") or "none"],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(self.out, "report.md")) as f:
                md = f.read()
            why = ("not drawn: the log has no rows of rcukern's nor of Linux 6.1's "
                   "for it: it would show the article's 2007 curves alone")
            self.assertIn("- refcnt-cpus.png (", md)
            self.assertIn(f"report: refcnt-cpus.png {why}", p.stderr)
            self.assertEqual(f"report: readside-cpus.png {why}" in p.stderr, not drawn,
                             p.stderr)
            self.assertEqual(f"- readside-cpus.png (Read-side critical section cost by "
                             f"CPU count (cs_ns=0)): {why}" in md, not drawn)
            for name in ("readside-cpus-batch", "readside-cslen-batch", "refcnt-cpus"):
                self.assertIn(f"- {name}.png (", md)
                for ext in (".png", ".gp"):
                    self.assertFalse(os.path.exists(os.path.join(self.out, name + ext)),
                                     name + ext)
            if shutil.which("gnuplot"):
                self.assertEqual(os.path.exists(os.path.join(self.out, "readside-cpus.png")),
                                 drawn)
                self.assertTrue(os.path.exists(os.path.join(self.out, "gp-latency.png")))

    def test_harness_row_and_less_gaps(self):
        # The gross time less the host gaps, and the harness alone as a
        # row of its own, in the matrix and the three-source table.
        rows, _ = report.read_log(
            "# bench name=readside type=empty cpus=2 vcpus=2 cs_ns=0 ns_per_op=4.8 stddev=1 runs=3 median_ns=4.5 batch_ns=2 less_gaps_ns=2.2\n"
            "# bench name=readside_harness type=harness cpus=2 vcpus=2 cs_ns=0 ns_per_op=0.4 stddev=0 runs=3 median_ns=0.4 batch_ns=0.1 less_gaps_ns=0.2\n"
            "# bench name=linux_readside model=none type=rcu cpus=2 vcpus=2 ns_per_op=2.3 median_ns=2.2\n")
        matrix = "\n".join(report.readside_matrix(rows))
        self.assertIn("| empty | 4.8 ± 1, median 4.5, batch 2, less gaps 2.2 |", matrix)
        self.assertIn("| harness | 0.4 ± 0, median 0.4, batch 0.1, less gaps 0.2 |", matrix)
        three = "\n".join(report.three_source_table(rows, {}))
        self.assertIn("| empty loop | 2 | - | 4.5 (batch 2, less gaps 2.2) [-smp 2] | - |", three)
        self.assertIn("| the timing harness alone | 2 | - | 0.4 (batch 0.1, less gaps 0.2) [-smp 2] | - |",
                      three)

    def test_tables_without_the_peer(self):
        # No linux_* rows (the peer not built): ours and the article's
        # are still tabled, and the note says how to get the third source.
        rows, _ = report.read_log(
            "# bench name=readside type=rcu cpus=1 vcpus=1 cs_ns=0 ns_per_op=9 stddev=1 runs=3 median_ns=9 batch_ns=8\n"
            "# bench name=gp type=normal cpus=2 n=10 min_ns=900 mean_ns=1000 max_ns=3000 median_ns=950\n")
        saved = report.common.PEER_DIR
        self.addCleanup(setattr, report.common, "PEER_DIR", saved)
        report.common.PEER_DIR = os.path.join(self.tmp.name, "no-peer")
        three = "\n".join(report.three_source_table(rows, {}))
        self.assertIn("| rcu_read_lock(), preemptible | 1 | - | 9 (batch 8) [-smp 1] | - |", three)
        self.assertIn("`make peer` builds the peer", three)
        gp = "\n".join(report.gp_table(rows))
        self.assertIn("| synchronize_sched() / PREEMPT_NONE synchronize_rcu() | 2 | 0.95 | 1 | 3 | - | - | - | - |", gp)
        self.assertIn("`make peer` builds the peer", gp)
        # The peer built but not run: the note says how to run it.
        built = os.path.join(self.tmp.name, "peer")
        os.makedirs(built)
        open(os.path.join(built, "bzImage-preempt"), "w").close()
        report.common.PEER_DIR = built
        self.assertIn("The peer is built (build/peer): `make bench ONLY=peer`",
                      "\n".join(report.gp_table(rows)))

    def test_kfree_time_in_flight_split(self):
        # kfree_rcu_mem rows: kfree_rcu()'s hand/GP/free split beside
        # call_rcu()'s total; rows from before the split are left out.
        from report.kfree import kfree_table
        rows, _ = report.read_log(
            "# bench name=kfree_rcu_mem by_call_rcu=0 peak_kb=2000 mean_kb=700 objs=9 us_hand=6000 us_gp=2000 us_free=3000 us_total=11000 batch_max=58000 eff_x100=262\n"
            "# bench name=kfree_rcu_mem by_call_rcu=1 peak_kb=1000 mean_kb=300 objs=9 us_hand=0 us_gp=0 us_free=0 us_total=7000 batch_max=0\n"
            "# bench name=kfree_rcu_mem by_call_rcu=0 peak_kb=5 mean_kb=4 objs=9\n")
        md = "\n".join(kfree_table(rows))
        self.assertIn("| kfree_rcu() | 2000 | 700 | 6000 | 2000 | 3000 | 11000 | 58000 | 2.62 |", md)
        self.assertIn("| call_rcu() | 1000 | 300 | - | - | - | 7000 | - | - |", md)
        self.assertNotIn("| kfree_rcu() | 5 |", md)

    def test_kfree_peer_rows_say_their_allocator(self):
        # tinyconfig's SLOB, or SLUB from bzImage-none-slub (model=none-slub).
        from report.kfree import kfree_table
        rows, _ = report.read_log(
            "# bench name=linux_kfree_rcu kernel=linux-6.1 model=preempt vcpus=2 threads=2 alloc_num=8000 loops=10 total_ns=1600000000 batches=42 footprint_kb=3072 by_call_rcu=0 ns_per_obj=10000\n"
            "# bench name=linux_kfree_rcu kernel=linux-6.1 model=none-slub vcpus=2 threads=2 alloc_num=8000 loops=10 total_ns=320000000 batches=40 footprint_kb=2048 by_call_rcu=0 ns_per_obj=2000\n"
            "# bench name=kfree_rcu threads=2 alloc_num=8000 loops=10 total_ns=2000000000 batches=6 gps_drain=1 footprint_kb=3705 by_call_rcu=0 call_rcus=7 ns_per_obj=12500 paced=80000\n")
        md = "\n".join(kfree_table(rows))
        self.assertIn("| rcukern | kfree_rcu(), paced at 80000/s | 2 | 8000 | 10 | 12500 |", md)
        self.assertIn("same host (SLOB) | kfree_rcu() | 2 | 8000 | 10 | 10000 |", md)
        self.assertIn("same host (SLUB) | kfree_rcu() | 2 | 8000 | 10 | 2000 |", md)

    def test_the_peer_file_is_picked_up(self):
        # build/bench-logs/peer.txt (--peer) joins the logs when they have
        # no peer rows of their own, once; --peer none leaves it out.
        peer = os.path.join(self.tmp.name, "peer.txt")
        with open(peer, "w") as f:
            f.write("# bench name=linux_readside kernel=linux-6.1 model=preempt type=rcu "
                    "cpus=1 vcpus=4 ns_per_op=3.1 median_ns=2.9\n")
        def run(*args):
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "report.py"),
                                *args, "--out", self.out, "--gnuplot", "none"],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(self.out, "report.md")) as f:
                return f.read(), p.stderr
        md, err = run(FIXTURE, "--peer", peer)
        self.assertIn("1 row(s) of the Linux peer", err)
        self.assertIn("2.9 (mean 3.1) [-smp 4, preempt]", md)
        # With the peer's min_ns, its fastest run beside the median.
        rows, _ = report.read_log(
            "# bench name=linux_readside kernel=linux-6.1 model=preempt type=srcu "
            "cpus=1 vcpus=4 ns_per_op=61 median_ns=60 min_ns=44\n")
        self.assertIn("| SRCU | 1 | - | - | 60 (mean 61, fastest run 44) [-smp 4, preempt] |",
                      "\n".join(report.three_source_table(rows, {})))
        self.assertIn("### name=linux_readside (1 row)", md)
        md, err = run(FIXTURE, peer, "--peer", peer)        # given: not twice
        self.assertNotIn("of the Linux peer", err)
        self.assertIn("### name=linux_readside (1 row)", md)
        md, _ = run(FIXTURE, "--peer", "none")
        self.assertNotIn("linux_readside", md)

    def test_a_test_build_log_is_flagged(self):
        # The kernel's "# build:" line: a test-build log's figures carry a
        # warning in report.md, the summary and each figure's title.
        with open(FIXTURE) as f:
            fixture = f.read()
        for build, warned in (("test (SANITIZE: UBSan, stack protector, test hooks), "
                               "preemptible RCU", True),
                              ("benchmark, preemptible RCU", False)):
            log = os.path.join(self.tmp.name, "build.log")
            with open(log, "w") as f:
                f.write(f"[c0] rcukern: an SMP x86-64 kernel\n# build: {build}\n" + fixture)
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "report.py"),
                                log, "--out", self.out, "--peer", "none", "--summary",
                                "--gnuplot", shutil.which("gnuplot") or "none"],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(self.out, "report.md")) as f:
                md = f.read()
            self.assertIn(f"- Build: **{build}**.", md)
            head = md.split("## Read-side goals")[0]
            self.assertEqual("> **Warning:** these figures come from the **test build**" in head,
                             warned)
            self.assertEqual("WARNING: these figures come from the test build" in p.stdout,
                             warned)
            self.assertIn(f"build: {build} ==", p.stdout)
            # In a figure's title on a line of its own (appended to a long
            # title it ran off the PNG's edge); one line in report.md.
            self.assertNotIn("\n[TEST BUILD", md)
            if shutil.which("gnuplot"):
                with open(os.path.join(self.out, "gp-latency.gp")) as f:
                    self.assertEqual('data)\\n[TEST BUILD: not benchmark figures]"' in f.read(),
                                     warned)

    def test_an_unknown_option_is_flagged(self):
        # A typo (-c "tortue=sched") runs the scenarios instead: the report
        # of that log says so at its top and the summary first and last
        # (run.sh prints the summary after the kernel's own last line).
        # An option the run ignored (cmdline.unknown=ignore) is said too.
        with open(FIXTURE) as f:
            fixture = f.read()
        for end, flagged in (("# cmdline: unknown option 'tortue': the run fails "
                              "(cmdline.unknown=ignore to go on)\n", True),
                             ("# cmdline: unknown option 'tortue' was ignored "
                              "(cmdline.unknown=ignore)\n", True),
                             ("", False)):
            log = os.path.join(self.tmp.name, "typo.log")
            with open(log, "w") as f:
                f.write("[c0] cmdline: unknown option 'tortue'; valid options:\n"
                        + fixture + end + "# rcukern: exit status 1\n")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "report.py"),
                                log, "--out", self.out, "--peer", "none", "--summary",
                                "--gnuplot", "none"],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(self.out, "report.md")) as f:
                head = f.read().split("## Read-side goals")[0]
            said = "> **Warning:** the run was given kernel option(s) it does not know: 'tortue'"
            self.assertEqual(said in head, flagged, head)
            lines = p.stdout.strip().splitlines()
            self.assertEqual("WARNING: the run was given kernel option(s) it does "
                             "not know: 'tortue'" in lines[1], flagged, lines[:2])
            self.assertEqual(lines[-2].startswith("WARNING: unknown kernel option(s) "
                                                  "'tortue'"), flagged, lines[-2:])

    def test_no_rows(self):
        # No bench rows (an empty or garbage log): an error, and the last
        # report is left as it was.
        md_dir = os.path.join(self.tmp.name, "empty")
        os.makedirs(md_dir)
        md = os.path.join(md_dir, "report.md")
        with open(md, "w") as f:
            f.write("the last good report\n")
        for text in ("KTAP version 1\n1..0\n", "", "\x00\xff garbage\n"):
            log = os.path.join(self.tmp.name, "empty.log")
            with open(log, "w") as f:
                f.write(text)
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "report.py"),
                                log, "--out", md_dir, "--gnuplot", "none"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, repr(text))
            self.assertIn("no '# bench' rows", p.stderr)
            with open(md) as f:
                self.assertEqual(f.read(), "the last good report\n")

    def test_make_report_of_a_log_needs_no_build(self):
        # `make report LOG=...` only formats a saved log: no apt check, no
        # ISO (make -n shows what it would run).
        p = subprocess.run(["make", "-n", "-C", ROOT, "report", "LOG=x.log"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("deps.sh", p.stdout)
        self.assertNotIn("grub-mkrescue", p.stdout)
        self.assertIn("tools/report.py x.log", p.stdout)

if __name__ == "__main__":
    unittest.main()
