"""tools/report/kfree.py: the poor man's garbage collector today: the
kfree_rcu() rows (paper_gc's `name=gc` pairs and rcuscale's kfree test,
`name=kfree_rcu`, with where an object's time in flight goes,
`name=kfree_rcu_mem`) beside the Linux peer's (`name=linux_kfree_rcu`)."""

from .common import LINUX_LABEL, fmt, md_table, no_peer


def _per_obj_ns(r):
    n = (r.num("threads") or 0) * (r.num("alloc_num") or 0) * (r.num("loops") or 0)
    t = r.num("total_ns")
    return fmt(t / n) if n and t is not None else "-"


def _eff(r):
    """peak x N / n of a kfree_rcu_mem row (eff_x100), as a ratio."""
    e = r.num("eff_x100")
    return f"{e / 100:.2f}" if e is not None else "-"


def kfree_table(rows):
    """rcuscale's kfree test, ours and Linux's, then paper_gc's pairs."""
    kf = [r for r in rows if r.get("name") in ("kfree_rcu", "linux_kfree_rcu")]
    gc = [r for r in rows if r.get("name") == "gc" and r.get("collector")]
    mem = [r for r in rows if r.get("name") == "kfree_rcu_mem" and r.get("us_total")]
    if not kf and not gc and not mem:
        return []
    out = []
    if kf:
        body = []
        for r in kf:
            who = "rcukern"
            if r.get("name") == "linux_kfree_rcu":
                slub = r.get("model", "").endswith("-slub")
                who = f"{LINUX_LABEL} ({'SLUB' if slub else 'SLOB'})"
            how = "call_rcu()" if r.get("by_call_rcu") == "1" else "kfree_rcu()"
            if r.num("paced"):
                how += f", paced at {r.get('paced')}/s"
            body.append([who, how,
                         r.get("threads", "-"), r.get("alloc_num", "-"), r.get("loops", "-"),
                         _per_obj_ns(r), r.get("batches", "-"), r.get("footprint_kb", "-")])
        out += md_table(["kernel", "freed by", "threads", "alloc_num", "loops",
                         "ns per object", "grace periods", "footprint KB"], body)
        out += ["", "rcuscale's kfree test (`kfree_rcu_test=1`): each thread "
                "allocates alloc_num objects and frees them, loops times. Grace "
                "periods: completed during the run (rcuscale's `batches`). "
                "A paced row (`gc.kfree_paced=PCT`) offers both paths the "
                "same rate, PCT% of the slower one's unpaced rate, where "
                "the unpaced rows each run as fast as they can. "
                "Footprint: rcukern counts the objects in flight and kfree_rcu's "
                "pages at their peak; rcuscale reads the system's available "
                "memory (MB steps) while the peer is still booting, so boot's "
                "freeing of its init sections (4.3 MB) can make Linux's "
                "negative. The peer's allocator is tinyconfig's SLOB (one global "
                "lock) unless the row says SLUB (bzImage-none-slub, "
                "`MODELS=none-slub tools/peer/build.sh`): with SLOB its ns "
                "per object owes more to kmalloc() and kfree() than to "
                "kfree_rcu() (SLUB's was 3.1 us at 2 vCPUs where SLOB's "
                "was 23.9, booted in turn)."]
        if not any(r.get("name") == "linux_kfree_rcu" for r in kf):
            out += ["", no_peer()]
    if mem:
        body = [["call_rcu()" if r.get("by_call_rcu") == "1" else "kfree_rcu()",
                 r.get("peak_kb", "-"), r.get("mean_kb", "-"),
                 *(("-", "-", "-") if r.get("by_call_rcu") == "1" else
                   (r.get("us_hand", "-"), r.get("us_gp", "-"), r.get("us_free", "-"))),
                 r.get("us_total", "-"),
                 "-" if r.get("by_call_rcu") == "1" else r.get("batch_max", "-"),
                 _eff(r)]
                for r in mem]
        out += [""] if out else []
        out += ["Where an object's time in flight goes (the same runs, "
                "`name=kfree_rcu_mem`): the mean per object, in us of "
                "jiffies, from queueing to its batch's call_rcu() (hand), "
                "to that grace period's end (GP) and to its free by a "
                "kfree_rcu/N worker (free); for call_rcu(), queueing to "
                "callback (total). Jiffies are the tick's: on a loaded host "
                "they run late against the clock (4 jiffies for 42 ms of "
                "ktime in one boot), so compare within a row, not with ns. "
                "Efficiency: peak objects x grace periods / objects; with N "
                "grace periods over n objects no collector can peak below "
                "n/N, so 1 is the floor (rcu/kvfree.c).", ""]
        out += md_table(["freed by", "peak KB", "mean KB", "hand us", "GP us",
                         "free us", "total us", "largest batch", "efficiency"], body)
    if gc:
        body = [[r.get("collector"), r.get("cpus", "-"), r.get("ms", "-"),
                 r.get("updates_per_s", "-"), r.get("gps", "-"), r.get("batches", "-"),
                 r.get("bytes_in_flight_max", "-"), r.get("max_in_flight", "-")] for r in gc]
        out += ["", "paper_gc, the two collectors at the same update rate "
                "(the kfree_rcu case paced to the call_rcu case's):", ""]
        out += md_table(["collector", "CPUs", "ms", "updates/s", "grace periods",
                         "call_rcu()s", "peak bytes in flight", "peak objects"], body)
    return out
