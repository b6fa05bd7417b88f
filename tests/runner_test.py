#!/usr/bin/env python3
"""tests/runner_test.py: tests of the test judge (tests/runner.py and its
modules qemu_configs, ktap_parser, judge, qemu_run and tools/benchrows)
over the saved serial logs in tests/runner-fixtures/.  They show that
the judge fails a run when it should: a "not ok", output that stops mid-suite, a
panic (whose register dump and backtrace it must echo), UBSAN, a plan
that disagrees with the results, an expected failure that did not happen.
The last class drives the runner against fake run.sh scripts to check the
time limit (the whole process group is killed), resets and the exit code.

    python3 -m unittest tests/runner_test.py       (from the repo root)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "tools")]
import benchrows  # noqa: E402
import judge  # noqa: E402
import qemu_configs  # noqa: E402
import qemu_run  # noqa: E402

FIXTURES = os.path.join(HERE, "runner-fixtures")


def fixture(name):
    return qemu_run.read_lines(os.path.join(FIXTURES, name))


def judge_fixture(name, cfg=None, **kw):
    cfg = cfg or qemu_configs.Config(name=name.split(".")[0])
    return judge.judge(cfg, fixture(name), **kw)


def statuses(v):
    return {c.path: c.status for c in v.cases}


def text_of(v):
    return "\n".join(judge.format_verdict(v))


def crash_cfg(**over):
    line = ("selftest-crash cpus=1 expect=fail require='Kernel panic' "
            "require='RIP: .*crash_null_dereference' -- test=selftest_crash")
    cfg = qemu_configs.parse_config_line(line)
    for k, val in over.items():
        setattr(cfg, k, val)
    return cfg


class ConfigTest(unittest.TestCase):
    def test_full_line(self):
        c = qemu_configs.parse_config_line(
            "x-1 cpus=4 mem=128 timeout=30 uefi machine=q35 "
            "forbid='rcu: stall' allow=UBSAN:.*expected -- test=mm,rcu rcu.x=1")
        self.assertEqual((c.name, c.cpus, c.mem, c.timeout, c.uefi, c.machine),
                         ("x-1", 4, 128, 30.0, True, "q35"))
        self.assertEqual(c.cmdline, "test=mm,rcu rcu.x=1")
        self.assertEqual(c.forbid[0].pattern, "rcu: stall")
        q = qemu_configs.parse_config_line("q cpus=12 qemu='-smp 12,sockets=2,cores=3,threads=2' "
                                     "qemu=-no-acpi monitor during='x y' ready=z check=c")
        self.assertEqual(q.qemu, ["-smp", "12,sockets=2,cores=3,threads=2", "-no-acpi"])
        self.assertEqual((q.monitor, q.during, q.ready.pattern, q.check),
                         (True, "x y", "z", "c"))
        self.assertEqual(qemu_run.run_command(q, "r", "/m")[-6:],
                         ["--", "-smp", "12,sockets=2,cores=3,threads=2",
                          "-no-acpi", "-monitor", "unix:/m,server,nowait"])
        self.assertFalse(c.expect_fail)
        self.assertEqual(qemu_run.run_command(c, "./run.sh"),
                         ["./run.sh", "--no-build", "-s", "4", "-m", "128",
                          "-c", "test=mm,rcu rcu.x=1", "--uefi",
                          "--machine", "q35"])

    def test_comments_and_defaults(self):
        self.assertIsNone(qemu_configs.parse_config_line("   # a comment"))
        self.assertIsNone(qemu_configs.parse_config_line(""))
        c = qemu_configs.parse_config_line("plain")
        self.assertEqual((c.cpus, c.mem, c.cmdline, c.uefi), (16, 512, "", False))
        self.assertEqual(c.idle, qemu_configs.DEFAULT_IDLE_BIG)
        self.assertEqual(qemu_configs.parse_config_line("p cpus=2").idle,
                         qemu_configs.DEFAULT_IDLE)
        self.assertEqual(qemu_configs.parse_config_line("p idle=7").idle, 7)

    def test_errors(self):
        bad = ["x cpu=4 -- test=all",            # unknown key
               "x cpus=0", "x cpus=four", "x mem=1", "x timeout=-3",
               "x machine=isapc", "x expect=maybe",
               "x require=RIP: -- test=all",     # require without expect=fail
               "x expect=fail require='(' -- t",  # bad regex
               "bad/name cpus=1", "x -- it's quoted", "x 'unterminated",
               "x ready=foo", "x during=", "x check=' '",
               "x seeds=1,2 -- jitter=40",         # seeds= without expect=fail
               "x expect=fail require=y seeds=1,x -- jitter=40",
               "x expect=fail require=y seeds=1,1 -- jitter=40",
               "x expect=fail require=y seeds=1,2 -- test=all"]  # no jitter=
        for line in bad:
            with self.assertRaises(qemu_configs.ConfigError, msg=line):
                qemu_configs.parse_config_line(line)
        with self.assertRaisesRegex(qemu_configs.ConfigError, "twice"):
            qemu_configs.parse_configs("a cpus=1\na cpus=2\n")

    def test_the_real_file(self):
        with open(os.path.join(HERE, "qemu-configs")) as f:
            configs = {c.name: c for c in qemu_configs.parse_configs(f.read())}
        for name in ("boot-smp1", "boot-smp16", "uefi-smp2", "selftest-crash"):
            self.assertIn(name, configs)
        self.assertEqual(configs["boot-smp1"].cpus, 1)
        self.assertEqual(configs["boot-smp16"].cpus, 16)
        self.assertIn("test=all", configs["boot-smp16"].cmdline)
        self.assertTrue(configs["uefi-smp2"].uefi)
        for c in configs.values():      # a hang is caught by idle=
            self.assertGreater(c.idle, 0, c.name)
        crash = configs["selftest-crash"]
        self.assertTrue(crash.expect_fail)
        pats = [r.pattern for r in crash.require]
        self.assertTrue(any("RIP:" in p for p in pats))
        self.assertTrue(any("Kernel panic" in p for p in pats))


    def test_the_verify_file(self):
        with open(os.path.join(HERE, "verify-configs")) as f:
            configs = {c.name: c for c in qemu_configs.parse_configs(f.read())}
        for flavour in ("sched", "schedexp", "async", "polled", "rcu", "rcuexp",
                        "srcu", "srcuexp"):
            c = configs["torture-onoff-%s-16" % flavour]
            self.assertEqual(c.cpus, 16)
            self.assertFalse(c.expect_fail)
            self.assertIn("torture.onoff_interval=", c.cmdline)
        self.assertTrue(configs["torture-onoff-busted-16"].expect_fail)


class CleanTest(unittest.TestCase):
    def test_escapes_and_crs(self):
        raw = b"\x1b[2J\x1b[H\x1b[0mGRUB\r\nKTAP version 1\r\n1..1\r\nab\rok 1 x\n"
        self.assertEqual(benchrows.clean_lines(raw),
                         ["GRUB", "KTAP version 1", "1..1", "ok 1 x"])

    def test_bad_utf8_is_not_fatal(self):
        self.assertEqual(benchrows.clean_lines(b"\xff\xfeok\n"), ["\ufffd\ufffdok"])


class VerdictTest(unittest.TestCase):
    def test_good_log_passes(self):
        v = judge_fixture("good.log", rc=0)
        self.assertTrue(v.passed, text_of(v))
        self.assertEqual(statuses(v), {
            "selftest/ktap_expect_works": "PASS",
            "selftest/kallsyms_names_functions": "PASS",
            "selftest/probe_fault_catches_page_fault": "PASS",
            "locks/spinlock_counts": "PASS",
            "locks/rwlock_counts": "PASS"})
        self.assertEqual(judge.summary_line([v]), ("5 passed, 0 failed", 0))
        self.assertEqual(v.bench, ["name=readside type=spinlock cpus=2 cs_ns=0 "
                                   "ns_per_op=41.5 stddev=2.1 runs=5"])
        self.assertEqual(v.platform, ["qemu tcg cpus=2"])

    def test_not_ok_fails_and_shows_why(self):
        v = judge_fixture("not-ok.log")
        self.assertFalse(v.passed)
        self.assertEqual(statuses(v)["selftest/kallsyms_names_functions"], "FAIL")
        self.assertEqual(statuses(v)["selftest/ktap_expect_works"], "PASS")
        self.assertIn("FAIL not-ok/selftest/kallsyms_names_functions", text_of(v))
        self.assertIn("EXPECTATION FAILED at tests/kernel/test_selftest.c:22",
                      text_of(v))
        self.assertEqual(judge.summary_line([v]), ("2 passed, 1 failed", 1))

    def test_truncated_log_fails(self):
        v = judge_fixture("truncated.log")
        self.assertFalse(v.passed)
        st = statuses(v)
        self.assertEqual(st["rcu/gp_completes"], "PASS")
        self.assertEqual(st["rcu/#2"], "FAIL")      # the case that never ended
        out = text_of(v)
        self.assertIn("never reported", out)
        self.assertIn("| " + "    # waiting for grace period 12", out)  # the tail

    def test_panic_fails_and_echoes_registers_and_backtrace(self):
        v = judge_fixture("panic.log")
        self.assertFalse(v.passed)
        self.assertEqual(statuses(v)["crash"], "FAIL")
        out = text_of(v)
        for want in ("RIP: 0008:ffffffff80104a12 crash_null_dereference+0x12/0x20",
                     "RAX: 0000000000000008", "CR2: 0000000000000008",
                     "Call Trace:", "null_dereference+0x11/0x30",
                     "kmain+0x90/0x100",
                     "Kernel panic - not syncing: Fatal exception: page fault"):
            self.assertIn(want, out)

    def test_ubsan_fails_even_when_every_case_passes(self):
        v = judge_fixture("ubsan.log", rc=0)
        self.assertFalse(v.passed)
        st = statuses(v)
        self.assertEqual(st["mm/page_alloc"], "PASS")
        self.assertEqual(st["crash"], "FAIL")
        self.assertEqual(st["exit-status"], "FAIL")  # exit 0 despite a report
        out = text_of(v)
        self.assertIn("UBSAN: shift-out-of-bounds in kernel/pmm.c:88:19", out)
        self.assertIn("shift exponent 64", out)

    # A trace dump (kernel/trace.c): `T: ` lines, which may carry task and
    # function names that look like crash lines, are not judged; an
    # expect=fail configuration may still require them.
    TRACE_DUMP = ["[c0] trace: dump (end) begins",
                  "T: begin reason=end mode=overwrite tsc_khz=2000000",
                  "T: cpu=0 recorded=2 lost=0 capped=0 first_ns=5",
                  "T: 0 5 sched_switch prev_comm=UBSAN:x next_comm=stack-protector",
                  "T: 0 6 rcu_invoke_callback rcuname=rcu_sched func=BUG:",
                  "T: end printed=2 lost=0 capped=0 torn=0 skipped=0"]

    def test_trace_dump_not_judged(self):
        good = fixture("good.log")
        lines = good[:3] + self.TRACE_DUMP + good[3:]
        # Judged as they are, these lines would fail the run ...
        self.assertTrue(judge.find_crashes(self.TRACE_DUMP))
        # ... but the judge reads past them.
        v = judge.judge(qemu_configs.Config(name="t"), lines, rc=0)
        self.assertTrue(v.passed, text_of(v))
        self.assertEqual(v.bench, judge.judge(qemu_configs.Config(name="t"),
                                              good, rc=0).bench)

    def test_trace_dump_required_after_panic(self):
        lines = fixture("panic.log")
        cfg = crash_cfg(require=[re.compile(r"^T: end printed=")])
        self.assertFalse(judge.judge(cfg, lines).passed)
        panic_at = next(i for i, x in enumerate(lines) if "Kernel panic" in x)
        with_dump = lines[:panic_at + 1] + self.TRACE_DUMP + lines[panic_at + 1:]
        v = judge.judge(cfg, with_dump)
        self.assertTrue(v.passed, text_of(v))

    def test_hard_lockup_report_fails(self):
        lines = fixture("good.log")[:-1] + [
            "[c0] watchdog: Watchdog detected hard LOCKUP on cpu 1: no timer "
            "tick for 10 s of CPU 0's ticks, irqs off",
            "[c0] NMI backtrace for cpu 1"] + fixture("good.log")[-1:]
        v = judge.judge(qemu_configs.Config(name="h"), lines, rc=0)
        self.assertFalse(v.passed)
        self.assertIn("hard-lockup at log line", text_of(v))
        self.assertIn("| [c0] NMI backtrace for cpu 1", text_of(v))

    def test_stack_protector_fails(self):
        v = judge_fixture("stack-protector.log")
        self.assertFalse(v.passed)
        self.assertIn("stack-protector: kernel stack is corrupted", text_of(v))
        self.assertIn("__stack_chk_fail", text_of(v))

    def test_plan_mismatch_fails(self):
        v = judge_fixture("plan-mismatch.log", rc=0)
        self.assertFalse(v.passed)
        self.assertIn("plan says 3 case(s), 2 reported", text_of(v))

    def test_missing_plan_fails(self):
        v = judge_fixture("no-plan.log")
        self.assertFalse(v.passed)
        self.assertIn("no plan line", text_of(v))

    def test_nested_suites(self):
        v = judge_fixture("nested.log")
        st = statuses(v)
        self.assertEqual(st["rcu/tree/fanout_16"], "PASS")
        self.assertEqual(st["rcu/tree/qs_rolls_up"], "PASS")
        self.assertEqual(st["rcu/segcblist/advance_moves_done"], "FAIL")
        self.assertEqual(st["list/list_add_del"], "PASS")
        self.assertEqual(len(st), 4)   # suites are not counted as cases
        self.assertIn("rcu/segcblist.c:40", text_of(v))

    def test_skip(self):
        v = judge_fixture("skip.log", rc=0)
        self.assertTrue(v.passed, text_of(v))
        st = statuses(v)
        self.assertEqual(st["nmi/nmi_ipi_roundtrip"], "PASS")
        self.assertEqual(st["nmi/nmi_in_idle"], "SKIP")
        self.assertEqual(st["hpet/hpet_counts"], "SKIP")
        self.assertEqual(st["preempt_rcu"], "SKIP")
        self.assertIn("needs at least 2 CPUs", text_of(v) + str(v.cases))
        self.assertEqual(judge.summary_line([v])[0],
                         "1 passed, 0 failed, 3 skipped")

    def test_restarted_output_fails(self):
        v = judge_fixture("restarted.log", rc=0)
        self.assertFalse(v.passed)
        self.assertIn("restarted", text_of(v))

    def test_no_ktap_fails(self):
        v = judge_fixture("no-ktap.log", rc=0)
        self.assertFalse(v.passed)
        self.assertIn("no KTAP output", text_of(v))

    def test_empty_log_fails(self):
        v = judge.judge(qemu_configs.Config(name="e"), [], rc=2)
        self.assertFalse(v.passed)
        self.assertIn("(nothing at all)", text_of(v))

    def test_suite_ok_with_failed_case_is_inconsistent(self):
        lines = ["KTAP version 1", "1..1", "    KTAP version 1",
                 "    # Subtest: s", "    1..1", "    not ok 1 c", "ok 1 s"]
        v = judge.judge(qemu_configs.Config(name="x"), lines)
        self.assertIn("reports ok though a case failed", text_of(v))

    def test_suite_not_ok_with_passing_cases_fails(self):
        lines = ["KTAP version 1", "1..1", "    KTAP version 1",
                 "    # Subtest: s", "    1..1", "    ok 1 c",
                 "    # exit hook leaked 3 pages", "not ok 1 s"]
        v = judge.judge(qemu_configs.Config(name="x"), lines)
        self.assertFalse(v.passed)
        self.assertEqual(statuses(v)["s"], "FAIL")
        self.assertIn("exit hook leaked 3 pages", text_of(v))

    def test_misnumbered_results_fail(self):
        lines = ["KTAP version 1", "1..2", "ok 1 a", "ok 3 b"]
        v = judge.judge(qemu_configs.Config(name="x"), lines)
        self.assertFalse(v.passed)
        self.assertIn("numbered 3 where 2 was due", text_of(v))

    def test_flat_document_without_suites(self):
        lines = ["KTAP version 1", "1..2", "ok 1 a", "ok 2 b # SKIP why"]
        v = judge.judge(qemu_configs.Config(name="x"), lines, rc=0)
        self.assertTrue(v.passed)
        self.assertEqual(statuses(v), {"a": "PASS", "b": "SKIP"})

    def test_printk_lines_inside_a_suite_are_ignored(self):
        v = judge_fixture("good.log")
        self.assertTrue(v.passed)   # "[c1] smp: CPU 1 online" inside locks

    def test_allow_and_forbid(self):
        allow = qemu_configs.parse_config_line("u allow=shift-out-of-bounds")
        self.assertTrue(judge.judge(allow, fixture("ubsan.log"), rc=0).passed)
        forbid = qemu_configs.parse_config_line("g forbid='CPU 1 online'")
        v = judge.judge(forbid, fixture("good.log"), rc=0)
        self.assertFalse(v.passed)
        self.assertEqual(statuses(v)["forbid"], "FAIL")

    def test_exit_status_is_checked(self):
        self.assertTrue(judge_fixture("good.log", rc=0).passed)
        for rc, what in ((1, "exit-status"), (2, "reset"), (64, "exit-status")):
            v = judge_fixture("good.log", rc=rc)
            self.assertFalse(v.passed, rc)
            self.assertEqual(statuses(v)[what], "FAIL")
        v = judge_fixture("not-ok.log", rc=0)
        self.assertEqual(statuses(v)["exit-status"], "FAIL")
        self.assertNotIn("exit-status", statuses(judge_fixture("not-ok.log", rc=1)))

    def test_a_failed_case_shows_what_the_kernel_said_last(self):
        # CI keeps no log: a failed run echoes the kernel's last lines,
        # where torture's reasons are (its case says only FAILURE).
        v = judge_fixture("not-ok.log", rc=1)
        self.assertIn("| # ktap: 1 of 2 suites failed", v.notes)
        self.assertEqual([], judge_fixture("good.log", rc=0).notes)

    def test_a_cut_log_shows_its_last_lines_once(self):
        # A case that never reported and the missing end both ask for the
        # log's last lines: they are shown once.
        v = judge_fixture("truncated.log")
        self.assertFalse(v.passed)
        self.assertEqual(sum(x.startswith("last ") for x in v.notes), 1, v.notes)

    def test_unknown_option_fails_the_run(self):
        # The kernel says each unknown option again before its exit status
        # (1 for them); cmdline.unknown=ignore makes the line say so.
        lines = fixture("good.log")
        end = ["# cmdline: unknown option 'tortue': the run fails "
               "(cmdline.unknown=ignore to go on)", "# rcukern: exit status 1"]
        v = judge.judge(qemu_configs.Config(name="typo"), lines + end, rc=1)
        self.assertFalse(v.passed)
        self.assertEqual(statuses(v)["cmdline"], "FAIL")
        self.assertNotIn("exit-status", statuses(v))     # one reason, not two
        self.assertIn("unknown kernel option(s) 'tortue'", text_of(v))
        ignored = ["# cmdline: unknown option 'tortue' was ignored "
                   "(cmdline.unknown=ignore)", "# rcukern: exit status 0"]
        v = judge.judge(qemu_configs.Config(name="typo"), lines + ignored, rc=0)
        self.assertTrue(v.passed)

    def test_timeout_fails_and_shows_the_last_lines(self):
        v = judge_fixture("good.log", rc=124, timed_out=True,
                          stderr_text="qemu-system-x86_64: terminating on signal 15")
        self.assertFalse(v.passed)
        out = text_of(v)
        self.assertIn("FAIL good/timeout", out)
        self.assertIn("last 20 line(s)", out)
        self.assertIn("| [c0] rcukern: done, exit 0", out)
        self.assertIn("terminating on signal 15", out)


def real_config(name):
    with open(os.path.join(HERE, "qemu-configs")) as f:
        return {c.name: c for c in qemu_configs.parse_configs(f.read())}[name]


class RealLogTest(unittest.TestCase):
    """Serial logs saved from real QEMU runs (CRLF line ends and all),
    judged as the configurations of tests/qemu-configs."""

    def test_real_boot_passes(self):
        v = judge.judge(real_config("boot-smp16"),
                         fixture("real-boot-smp16.log"), rc=0)
        self.assertTrue(v.passed, text_of(v))
        self.assertEqual(statuses(v)["selftest/kallsyms_names_functions"], "PASS")
        self.assertGreaterEqual(len(v.cases), 10)

    def test_real_crash_is_the_expected_failure(self):
        lines = fixture("real-selftest-crash.log")
        v = judge.judge(real_config("selftest-crash"), lines, rc=1)
        self.assertTrue(v.passed, text_of(v))
        # Judged as an ordinary run it fails, showing RIP and the trace.
        v = judge.judge(qemu_configs.Config(name="c"), lines, rc=1)
        self.assertFalse(v.passed)
        out = text_of(v)
        self.assertRegex(out, r"\| \[c0\] RIP: 0008:[0-9a-f]{16} crash_null_dereference")
        self.assertRegex(out, r"\| \[c0\]  \[<[0-9a-f]{16}>\] null_dereference\+")


def ktap_log(*body):
    """A one-suite run `w` around the given lines (strings; a case's result
    is "    ok N name"), ending in the kernel's exit status line."""
    return (["[c0] rcukern: booting", "KTAP version 1", "1..1",
             "    KTAP version 1", "    # Subtest: w", "    1..2"]
            + list(body) + ["ok 1 w", "# rcukern: exit status 0"])


WARN_LINE = "[c0] WARNING: CPU: 0 at kernel/x.c:12: something broke"


class WarningTest(unittest.TestCase):
    """A WARNING no case announced fails the run, wherever it was printed
    (tests/judge.py unannounced_warnings())."""

    cfg = qemu_configs.Config(name="w")

    def verdict(self, lines, cfg=None):
        return judge.judge(cfg or self.cfg, lines, rc=0)

    def test_announced_in_its_case_passes(self):
        v = self.verdict(ktap_log(
            "    # expected: 2 WARNINGs (both), from case a", WARN_LINE,
            "[c0] Call Trace:", WARN_LINE, "    ok 1 a", "    ok 2 b"))
        self.assertTrue(v.passed, text_of(v))

    def test_outside_any_case_fails(self):
        boot = ["[c0] rcukern: booting", WARN_LINE] + ktap_log(
            "    ok 1 a", "    ok 2 b")[1:]
        between = ktap_log("    ok 1 a", "    ok 2 b", WARN_LINE)
        after = ktap_log("    ok 1 a", "    ok 2 b") + [WARN_LINE]
        for lines, where in ((boot, "before the first case (boot)"),
                             (between, "after case w/b"),
                             (after, "after case w/b")):
            v = self.verdict(lines)
            self.assertFalse(v.passed, lines)
            self.assertEqual(statuses(v)["warning"], "FAIL")
            self.assertEqual(statuses(v)["w/a"], "PASS")
            self.assertNotIn("exit-status", statuses(v))   # not the kernel's
            self.assertIn(where, text_of(v))
            self.assertIn("| " + WARN_LINE, text_of(v))

    def test_one_the_case_count_missed_fails(self):
        # The case passed, but printed one WARNING more than it announced.
        v = self.verdict(ktap_log(
            "    # expected: 1 WARNING, from case a", WARN_LINE, WARN_LINE,
            "    ok 1 a", "    ok 2 b"))
        self.assertFalse(v.passed)
        self.assertIn("in case w/a, which passed having announced 1", text_of(v))
        # A case the kernel failed already says so itself.
        v = self.verdict(ktap_log(WARN_LINE, "    not ok 1 a", "    ok 2 b"))
        self.assertNotIn("warning", statuses(v))

    def test_announced_outside_or_allowed_passes(self):
        lines = ["    # expected: 1 WARNING (boot), from case ?", WARN_LINE] \
            + ktap_log("    ok 1 a", "    ok 2 b")
        self.assertTrue(self.verdict(lines).passed, text_of(self.verdict(lines)))
        lines += [WARN_LINE]     # the announcement covered one only
        self.assertFalse(self.verdict(lines).passed)
        allow = qemu_configs.parse_config_line("w allow='x\\.c:12: something'")
        self.assertTrue(self.verdict(lines, allow).passed)

    def test_lockdep_header_is_not_a_second_warning(self):
        v = self.verdict(ktap_log(
            "    # expected: 1 WARNING, from case a",
            "[c1] WARNING: possible circular locking dependency detected",
            "[c1] WARNING: CPU: 1 at kernel/lockdep.c:350: possible circular",
            "    ok 1 a", "    ok 2 b"))
        self.assertTrue(v.passed, text_of(v))

    def test_real_stray_warnings_fail(self):
        lines = fixture("real-stray-warning.log")
        v = judge.judge(real_config("stray-warning-fails"), lines, rc=0)
        self.assertTrue(v.passed, text_of(v))       # the expected failure
        v = judge.judge(qemu_configs.Config(name="s"), lines, rc=0)
        self.assertFalse(v.passed)
        self.assertEqual(statuses(v), {
            "selftest_stray_warning/stray_case_passes": "PASS",
            "warning": "FAIL"})
        out = text_of(v)
        self.assertIn("2 WARNING(s) no case announced", out)
        self.assertIn("stray: a kthread WARNs after its case ended", out)
        self.assertRegex(out, r"\| \[c0\]  \[<[0-9a-f]{16}>\] stray_suite_exit\+")


class SavedLogExitTest(unittest.TestCase):
    def test_exit_status_line(self):
        self.assertEqual(judge.logged_exit_status(fixture("real-boot-smp16.log")), 0)
        self.assertEqual(judge.logged_exit_status(fixture("real-selftest-crash.log")), 1)
        self.assertIsNone(judge.logged_exit_status(fixture("good.log")))
        # A saved log whose kernel said "failure" with no failed case fails.
        lines = fixture("real-boot-smp16.log")[:-1] + ["# rcukern: exit status 1"]
        v = judge.judge(qemu_configs.Config(name="x"), lines,
                         judge.logged_exit_status(lines))
        self.assertEqual(statuses(v)["exit-status"], "FAIL")


class FalsePassTest(unittest.TestCase):
    """Logs that once passed though the run did not finish or reported
    more than it planned (tests/runner-fixtures)."""

    def test_saved_log_that_never_finished_fails(self):
        # No "# rcukern: exit status" and no "# ktap:" summary: the kernel
        # hung, or the serial line was cut, after its last suite.
        lines = fixture("unfinished.log")
        v = judge.judge(qemu_configs.Config(name="u"), lines,
                         judge.logged_exit_status(lines))
        self.assertFalse(v.passed, text_of(v))
        self.assertEqual(statuses(v)["unfinished"], "FAIL")
        self.assertIn("no '# rcukern: exit status N' line", text_of(v))
        self.assertIn("| [c1] rcu: starting the exit hooks", text_of(v))
        # Either line says the run finished.
        for end in ("# ktap: 0 of 2 suites failed", "# rcukern: exit status 0"):
            v = judge.judge(qemu_configs.Config(name="u"), lines + [end],
                             judge.logged_exit_status(lines + [end]))
            self.assertTrue(v.passed, text_of(v))
        # A panic ends a run too: the expected-failure crash log passes.
        self.assertTrue(judge.judge(crash_cfg(), fixture("panic.log")).passed)
        v = judge.judge(crash_cfg(), lines)
        self.assertFalse(v.passed)
        self.assertIn("did not finish", text_of(v))

    def test_more_results_than_the_plan_fail(self):
        v = judge_fixture("beyond-plan.log", rc=0)
        self.assertFalse(v.passed, text_of(v))
        self.assertIn("after the plan 1..2 was complete", text_of(v))

    def test_result_after_a_complete_document_fails(self):
        v = judge_fixture("after-complete.log", rc=0)
        self.assertFalse(v.passed, text_of(v))
        self.assertIn("line 9: not ok 2 extra_suite", text_of(v))

    def test_not_ok_todo_is_a_failure(self):
        v = judge_fixture("todo.log", rc=0)
        self.assertFalse(v.passed, text_of(v))
        st = statuses(v)
        self.assertEqual(st["rcu/callbacks_in_order"], "FAIL")
        self.assertIn("TODO not fixed yet", text_of(v))
        # ok ... # TODO passed; only # SKIP skips.
        lines = ["KTAP version 1", "1..2", "ok 1 a # TODO later",
                 "not ok 2 b # SKIP no HPET", "# ktap: 0 of 2 suites failed"]
        v = judge.judge(qemu_configs.Config(name="x"), lines, rc=0)
        self.assertTrue(v.passed, text_of(v))
        self.assertEqual(statuses(v), {"a": "PASS", "b": "SKIP"})

    def test_saved_logs_through_the_command_line(self):
        for name in ("unfinished", "beyond-plan", "after-complete", "todo"):
            p = subprocess.run([sys.executable, os.path.join(HERE, "runner.py"),
                                "--config", os.devnull, "--log",
                                os.path.join(FIXTURES, name + ".log")],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 1, name + ":\n" + p.stdout)


class ExpectedFailureTest(unittest.TestCase):
    def test_crash_as_expected_passes(self):
        v = judge.judge(crash_cfg(), fixture("panic.log"), rc=1)
        self.assertTrue(v.passed, text_of(v))
        self.assertEqual([(c.status, c.path) for c in v.cases],
                         [("PASS", "expected-failure")])
        self.assertEqual(judge.summary_line([v]), ("1 passed, 0 failed", 0))

    def test_expected_failure_that_passes_is_a_failure(self):
        v = judge.judge(crash_cfg(), fixture("good.log"), rc=0)
        self.assertFalse(v.passed)
        self.assertEqual(statuses(v), {"expected-failure": "FAIL"})
        self.assertIn("the run passed", text_of(v))
        self.assertEqual(judge.summary_line([v]), ("0 passed, 1 failed", 1))

    def test_failing_the_wrong_way_is_a_failure(self):
        # not ok, but no panic: the required lines are missing.
        v = judge.judge(crash_cfg(), fixture("not-ok.log"), rc=1)
        self.assertFalse(v.passed)
        self.assertIn("required /Kernel panic/ is not in the log", text_of(v))
        # A panic without the function name in RIP (symbols broken).
        lines = [re.sub(r"crash_null_dereference\+", "0x", x)
                 if "RIP:" in x else x for x in fixture("panic.log")]
        v = judge.judge(crash_cfg(), lines, rc=1)
        self.assertFalse(v.passed)
        self.assertIn("crash_null_dereference", text_of(v))

    def test_hang_or_reset_is_not_the_expected_failure(self):
        v = judge.judge(crash_cfg(), fixture("panic.log"), rc=124, timed_out=True)
        self.assertFalse(v.passed)
        self.assertIn("hanging", text_of(v))
        v = judge.judge(crash_cfg(), fixture("panic.log"), rc=2)
        self.assertFalse(v.passed)
        self.assertIn("reset", text_of(v))


FAKE_RUN_SH = """\
#!/usr/bin/env bash
# A stand-in for run.sh: behaves as the first word of the command line says.
echo "args: $*" >&2
while [[ $# -gt 0 ]]; do [[ $1 == -c ]] && cmd=$2; shift; done
case $cmd in
good*)  cat "{fixtures}/good.log"; exit 0 ;;
slow*)  echo "[c0] waiting for the screen"; sleep 2; cat "{fixtures}/good.log"; exit 0 ;;
crash*) cat "{fixtures}/panic.log"; exit 1 ;;
seeded*) echo "caught with seed ${{cmd##*jitter.seed=}}"; cat "{fixtures}/panic.log"; exit 1 ;;
reset*) echo "KTAP version 1"; echo "1..1"
        echo "run.sh: QEMU stopped without an exit from the kernel" >&2; exit 2 ;;
qemufail*) echo "qemu-system-x86_64: Invalid SMP CPUs 300. The max CPUs supported by machine 'pc-i440fx-8.2' is 255" >&2
        echo "run.sh: QEMU failed (exit status 1) without running the kernel" >&2; exit 3 ;;
hang*)  echo "KTAP version 1"; echo "1..1"; echo "# hanging now"
        sleep 300 &
        echo $! > "$HANG_PID"
        wait ;;
esac
"""


class RunnerProcessTest(unittest.TestCase):
    """The runner end to end, with a fake run.sh."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.run_sh = os.path.join(d, "run.sh")
        with open(self.run_sh, "w") as f:
            f.write(FAKE_RUN_SH.format(fixtures=FIXTURES))
        os.chmod(self.run_sh, 0o755)
        self.cfg = os.path.join(d, "configs")
        with open(self.cfg, "w") as f:
            f.write(textwrap.dedent("""\
                # test configurations
                good     cpus=2 mem=64 timeout=60 uefi -- good test=all
                crash    cpus=1 timeout=60 expect=fail require='RIP: .*crash_null' -- crash
                reset    cpus=1 timeout=60 -- reset
                hang     cpus=1 timeout=2 -- hang
                quiet    cpus=1 timeout=100 idle=2 -- hang
                hooks-ok cpus=1 timeout=60 monitor qemu='-vga std -S' ready=waiting during='test -n "$RUNNER_MONITOR" && grep -q waiting "$RUNNER_LOG"' check='test "$RUNNER_RC" = 0 && grep -q "ok 2 locks" "$RUNNER_LOG"' -- slow
                hooks-bad cpus=1 timeout=60 during='echo during-said-no; exit 3' check='echo check-said-no; exit 1' -- good
                not-ready cpus=1 timeout=60 during=true ready=never-printed -- good
                qemufail cpus=1 timeout=60 -- qemufail
                qemufail-x cpus=1 timeout=60 expect=fail require=x -- qemufail
                seeded   cpus=1 timeout=60 expect=fail seeds=1,2,3 require='caught with seed 2$' -- seeded jitter=40 jitter.seed=1
                unseeded cpus=1 timeout=60 expect=fail seeds=1,2 require='caught with seed 9' -- seeded jitter=40 jitter.seed=1
                """))
        self.logs = os.path.join(d, "logs")
        self.env = dict(os.environ, HANG_PID=os.path.join(d, "hang.pid"))

    def tearDown(self):
        self.tmp.cleanup()

    def run_runner(self, *args):
        return subprocess.run(
            [sys.executable, os.path.join(HERE, "runner.py"), "--config",
             self.cfg, "--run-sh", self.run_sh, "--log-dir", self.logs, *args],
            capture_output=True, text=True, env=self.env, timeout=120)

    def test_pass_and_expected_failure(self):
        p = self.run_runner("--only", "good,crash")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[-1], "6 passed, 0 failed")
        self.assertIn("PASS good/locks/rwlock_counts", lines)
        self.assertIn("PASS crash/expected-failure", lines)
        with open(os.path.join(self.logs, "good.stderr")) as f:
            self.assertIn("--no-build -s 2 -m 64 -c good test=all --uefi", f.read())
        with open(os.path.join(self.logs, "bench.txt")) as f:
            bench = f.read()
        self.assertIn("# bench name=readside type=spinlock cpus=2 cs_ns=0 "
                      "ns_per_op=41.5 stddev=2.1 runs=5 config=good", bench)
        self.assertIn("# platform: qemu tcg cpus=2 config=good", bench)
        # Each line says its wall and CPU time; the summary adds them up.
        self.assertRegex(p.stdout, r"# good: ok in \d+ s, QEMU CPU \d+ s \(longest")
        self.assertRegex(p.stdout, r"# time: 2 configurations in \d+ s \(1 at once\), "
                                   r"wall \d+ s and QEMU CPU \d+ s summed; longest: ")

    def test_seeds_tried_until_one_fails_as_required(self):
        # Seed 1's run fails, but not as required: seed 2 is tried, and
        # catches it; seed 3 is not run.
        p = self.run_runner("--only", "seeded")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("PASS seeded/expected-failure", p.stdout)
        self.assertIn("# seeded: not caught", p.stdout)
        self.assertRegex(p.stdout, r"# seeded: ok, caught by seed 2 \(try 2 of 3\) in "
                                   r"\d+ s, QEMU CPU \d+ s")
        self.assertRegex(p.stdout, r"# seeded-s2: caught in \d+ s, QEMU CPU \d+ s")
        self.assertNotIn("seeded-s3", p.stdout)
        with open(os.path.join(self.logs, "seeded-s2.stderr")) as f:
            self.assertIn("-c seeded jitter=40 jitter.seed=2", f.read())
        # No seed catches it: every seed was tried, and the verdict says so.
        p = self.run_runner("--only", "unseeded")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("FAIL unseeded/expected-failure", p.stdout)
        self.assertIn("# run unseeded-s2:", p.stdout)
        self.assertIn("not caught by seeds 1,2", p.stdout)

    def test_reset_fails(self):
        p = self.run_runner("--only", "reset")
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAIL reset/reset", p.stdout)
        self.assertIn("QEMU stopped without an exit", p.stdout)
        self.assertRegex(p.stdout.splitlines()[-1], r"^0 passed, \d+ failed$")

    def test_hang_is_killed_with_its_process_group(self):
        start = time.monotonic()
        p = self.run_runner("--only", "hang")
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAIL hang/timeout", p.stdout)
        self.assertIn("| # hanging now", p.stdout)   # the last lines printed
        with open(self.env["HANG_PID"]) as f:
            pid = int(f.read())
        with self.assertRaises(ProcessLookupError):    # the grandchild is gone
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.1)

    def test_qemu_args_monitor_during_and_check(self):
        p = self.run_runner("--only", "hooks-ok")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("PASS hooks-ok/during", p.stdout)
        self.assertIn("PASS hooks-ok/check", p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1], "7 passed, 0 failed")
        with open(os.path.join(self.logs, "hooks-ok.stderr")) as f:
            args = f.read()
        mon = os.path.join(self.logs, "hooks-ok.monitor")
        self.assertIn(f"-c slow -- -vga std -S -monitor unix:{mon},server,nowait", args)

    def test_failing_hooks_fail_the_run(self):
        p = self.run_runner("--only", "hooks-bad,not-ready")
        self.assertEqual(p.returncode, 1)
        out = p.stdout
        self.assertIn("FAIL hooks-bad/during  (the during= command failed (exit status 3))", out)
        self.assertIn("during-said-no", out)
        self.assertIn("FAIL hooks-bad/check  (the check= command failed (exit status 1))", out)
        self.assertIn("check-said-no", out)
        self.assertIn("FAIL not-ready/during", out)
        self.assertIn("never matched ready=/never-printed/", out)

    def test_killing_the_runner_ends_its_runs(self):
        with open(self.cfg, "a") as f:
            f.write("long-hang cpus=1 timeout=120 -- hang\n")
        p = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "runner.py"), "--config",
             self.cfg, "--run-sh", self.run_sh, "--log-dir", self.logs,
             "--only", "long-hang"], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=self.env)
        for _ in range(100):                  # until the fake QEMU runs
            if os.path.exists(self.env["HANG_PID"]):
                break
            time.sleep(0.1)
        time.sleep(0.3)
        with open(self.env["HANG_PID"]) as f:
            pid = int(f.read())
        p.terminate()
        _, err = p.communicate(timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("stopped by signal", err)
        with self.assertRaises(ProcessLookupError):
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.1)

    def test_silence_past_idle_is_a_timeout(self):
        start = time.monotonic()
        p = self.run_runner("--only", "quiet")
        self.assertLess(time.monotonic() - start, 30)   # not timeout=100
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAIL quiet/timeout  (no serial output for 2 s (idle=)", p.stdout)

    def test_qemu_that_did_not_start_is_named(self):
        p = self.run_runner("--only", "qemufail,qemufail-x")
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAIL qemufail/qemu  (QEMU did not start: "
                      "qemu-system-x86_64: Invalid SMP CPUs 300.", p.stdout)
        self.assertIn("FAIL qemufail-x/qemu  (QEMU did not start", p.stdout)
        self.assertNotIn("exited with success", p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1], "0 passed, 2 failed")

    def test_unknown_config_name(self):
        p = self.run_runner("--only", "nosuch")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no configuration named nosuch", p.stderr)

    def test_judging_saved_logs(self):
        p = self.run_runner("--log", os.path.join(FIXTURES, "good.log"))
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1], "5 passed, 0 failed")
        p = self.run_runner("--log", os.path.join(FIXTURES, "panic.log"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("RIP: 0008:ffffffff80104a12 crash_null_dereference", p.stdout)
        self.assertRegex(p.stdout.splitlines()[-1], r"^0 passed, [1-9]\d* failed$")
        # Judged as the expected-fail configuration, the panic log passes.
        p = self.run_runner("--log", os.path.join(FIXTURES, "panic.log"),
                            "--only", "crash")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1], "1 passed, 0 failed")


class RunShTest(unittest.TestCase):
    """run.sh's own checks: a bad option is a usage error (64) before QEMU
    starts; QEMU failing by itself is exit 3 with QEMU's message, never
    the kernel's success (0) and never a fresh empty report."""

    def run_sh(self, *args, iso=os.devnull):
        env = dict(os.environ, RCUKERN_ISO=iso)
        return subprocess.run([os.path.join(os.path.dirname(HERE), "run.sh"),
                               "--no-build", *args], capture_output=True,
                              text=True, env=env, timeout=60)

    def test_bad_options_are_usage_errors(self):
        for args, said in ((["-s", "300"], "the pc machine takes 1..255 CPUs"),
                           (["-s", "0"], "1..255"),
                           (["-s", "abc"], "-s 'abc'"),
                           (["--machine", "q35", "-s", "289"], "q35 machine takes 1..288"),
                           (["-m", "lots"], "memory in MiB"),
                           (["-s"], "-s needs a value"),
                           (["-c"], "-c needs a value"),
                           (["--bogus"], "unknown option")):
            p = self.run_sh(*args)
            self.assertEqual(p.returncode, 64, (args, p.stderr))
            self.assertIn(said, p.stderr, args)

    def test_an_unknown_kernel_option_is_refused_before_booting(self):
        # A typo in -c would boot the default scenarios (minutes at 16
        # CPUs, the report overwritten) and fail only at the end: run.sh
        # refuses it at once, from the sources' core_param() names.
        for cmdline, refused in (("foo=1", "'foo'"),
                                 ("tortue=sched test=boot", "'tortue'"),
                                 ('test=rcu trace.mode="a b" tortue', "'tortue'"),
                                 # a token with no name ends not the check
                                 ("=x tortue=sched", "'=x' (no name) 'tortue'"),
                                 ("   ", None),
                                 ("test=rcu torture.secs=5 rcu.jiffies-till-first-fqs=3", None),
                                 ('trace.mode="a b" help', None),
                                 ("foo=1 cmdline.unknown=ignore", None),
                                 ("", None)):
            p = self.run_sh("-c", cmdline)
            if refused:
                self.assertEqual(p.returncode, 64, (cmdline, p.stderr))
                self.assertIn(f"-c: unknown kernel option {refused}: not booted", p.stderr)
                self.assertIn("cmdline.unknown=ignore to boot anyway", p.stderr)
            else:       # past the check: the ISO (/dev/null) is what is missing
                self.assertNotIn("unknown kernel option", p.stderr, cmdline)
                self.assertIn("missing (run make)", p.stderr, cmdline)
        # The runner hands the line to the kernel, whose check it tests.
        env = dict(os.environ, RCUKERN_ISO=os.devnull, RCUKERN_NO_CMDLINE_CHECK="1")
        p = subprocess.run([os.path.join(os.path.dirname(HERE), "run.sh"), "--no-build",
                            "-c", "foo=1"], capture_output=True, text=True, env=env,
                           timeout=60)
        self.assertNotEqual(p.returncode, 64, p.stderr)

    def test_list_prints_the_vocabulary(self):
        # Every suite the sources define and every torture flavour, no QEMU.
        p = self.run_sh("--list")
        self.assertEqual(p.returncode, 0, p.stderr)
        root = os.path.dirname(HERE)
        suites = set()
        for d in ("tests/kernel", "tests/scenarios"):
            for name in os.listdir(os.path.join(root, d)):
                if name.endswith(".c"):
                    with open(os.path.join(root, d, name)) as f:
                        suites |= set(re.findall(r"KTAP_SUITE(?:_FULL)?\((\w+)", f.read()))
        self.assertGreater(len(suites), 10)
        words = set(p.stdout.split())
        self.assertLessEqual(suites, words, suites - words)
        self.assertIn("profile", suites)        # defined by KTAP_SUITE_FULL only
        listed = p.stdout.split("torture= flavours")[0].split()
        self.assertEqual(len(listed), len(set(listed)), "a suite listed twice")
        for flavour in ("sched", "sched-expedited", "busted", "rcu", "srcu-expedited"):
            self.assertIn(flavour, words)

    @unittest.skipUnless(shutil.which("qemu-system-x86_64"), "no QEMU")
    def test_qemu_that_fails_to_start_is_not_success(self):
        with tempfile.TemporaryDirectory() as d:
            iso = os.path.join(d, "x.iso")
            open(iso, "w").close()
            p = self.run_sh("-s", "1", "-c", "test=x", "--", "-smp", "300",
                            iso=iso)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("run.sh: QEMU failed", p.stderr)
        self.assertIn("Invalid SMP CPUs 300", p.stderr)


if __name__ == "__main__":
    unittest.main()
