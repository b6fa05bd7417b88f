#!/usr/bin/env python3
"""tests/qemu_configs.py: the configuration language of tests/qemu-configs
and tests/bench-configs, one QEMU run per line:

    name key=value ... [uefi] [usb] [monitor] -- kernel command line

parsed into Config objects for tests/runner.py (as Linux's
tools/testing/kunit/kunit_config.py is for kunit.py).  Only the Python
standard library is used.
"""

import os
import re
import shlex
from dataclasses import dataclass, field


CONFIG_KEYS = ("cpus", "mem", "timeout", "idle", "machine", "gfx", "expect", "require",
               "forbid", "allow", "qemu", "during", "ready", "check", "seeds")


class ConfigError(Exception):
    pass


@dataclass
class Config:
    name: str
    cpus: int = 16
    mem: int = 512
    timeout: float = 600.0
    idle: float = 0.0         # fail after this long without output (0: off;
                              # parse_config_line gives every line a limit)
    cmdline: str = ""
    uefi: bool = False
    usb: bool = False                             # the ISO as a USB stick
    machine: str = ""
    gfx: str = ""                                 # run.sh --gfx (GRUB's video mode)
    expect_fail: bool = False
    require: list = field(default_factory=list)   # regexes that must appear
    forbid: list = field(default_factory=list)    # regexes that must not
    allow: list = field(default_factory=list)     # crash lines to ignore
    qemu: list = field(default_factory=list)      # extra QEMU arguments
    monitor: bool = False                         # a QEMU monitor socket
    during: str = ""                              # a command run beside QEMU
    ready: "re.Pattern" = None                    # ... once the log matches
    check: str = ""                               # a command run afterwards
    seeds: list = field(default_factory=list)     # jitter seeds to try (expect=fail)
    source: str = ""                              # file:line, for messages

    def seeded(self, seed):
        """The command line with jitter.seed=seed in place of its own."""
        words = [w for w in self.cmdline.split() if not w.startswith("jitter.seed=")]
        return " ".join(words + [f"jitter.seed={seed}"])


# The idle= limit of a configuration that sets none: a hang with every CPU
# stuck is a named failure within minutes, not at timeout=.  Generous,
# since TCG on a loaded host is slow and a long case prints nothing while
# it runs; more vCPUs than host cores are slower still.
DEFAULT_IDLE, DEFAULT_IDLE_BIG = 300.0, 600.0
BIG_CPUS = 4


def default_idle(cpus):
    return DEFAULT_IDLE if cpus <= BIG_CPUS else DEFAULT_IDLE_BIG


def _regex(text, where):
    try:
        return re.compile(text)
    except re.error as e:
        raise ConfigError(f"{where}: bad regex {text!r}: {e}")


def parse_config_line(line, where="<line>"):
    """One configuration: `name key=value ... [uefi] -- kernel command line`.
    Returns None for blank and comment lines."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    try:
        tokens = shlex.split(text)
    except ValueError as e:
        raise ConfigError(f"{where}: {e}")
    if "--" in tokens:
        cut = tokens.index("--")
        opts, cmd = tokens[:cut], tokens[cut + 1:]
    else:
        opts, cmd = tokens, []
    name = opts[0]
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise ConfigError(f"{where}: bad configuration name {name!r} "
                          "(letters, digits, '-', '_', '.')")
    cfg = Config(name=name, cmdline=" ".join(cmd), source=where)
    for opt in opts[1:]:
        if opt in ("uefi", "monitor", "usb"):
            setattr(cfg, opt, True)
            continue
        key, eq, val = opt.partition("=")
        if not eq or key not in CONFIG_KEYS:
            raise ConfigError(f"{where}: unknown option {opt!r}; options are "
                              + ", ".join(k + "=" for k in CONFIG_KEYS)
                              + ", uefi, usb and monitor")
        try:
            if key == "cpus":
                cfg.cpus = int(val)
                if not 1 <= cfg.cpus <= 255:
                    raise ValueError
            elif key == "mem":
                cfg.mem = int(val)
                if cfg.mem < 16:
                    raise ValueError
            elif key in ("timeout", "idle"):
                setattr(cfg, key, float(val))
                if getattr(cfg, key) <= 0:
                    raise ValueError
        except ValueError:
            raise ConfigError(f"{where}: bad value in {opt!r}")
        if key == "machine":
            if val not in ("pc", "q35"):
                raise ConfigError(f"{where}: machine= must be pc or q35")
            cfg.machine = val
        elif key == "gfx":
            if not re.fullmatch(r"\d+x\d+(x\d+)?|text", val):
                raise ConfigError(f"{where}: gfx= must be WxH, WxHxD or text")
            cfg.gfx = val
        elif key == "expect":
            if val not in ("pass", "fail"):
                raise ConfigError(f"{where}: expect= must be pass or fail")
            cfg.expect_fail = val == "fail"
        elif key == "qemu":
            try:
                cfg.qemu += shlex.split(val)
            except ValueError as e:
                raise ConfigError(f"{where}: qemu=: {e}")
        elif key == "ready":
            cfg.ready = _regex(val, where)
        elif key in ("during", "check"):
            if not val.strip():
                raise ConfigError(f"{where}: {key}= needs a command")
            setattr(cfg, key, val)
        elif key == "seeds":
            try:
                cfg.seeds = [int(x) for x in val.split(",")]
            except ValueError:
                raise ConfigError(f"{where}: seeds= is a list of numbers: {val!r}")
            if len(set(cfg.seeds)) != len(cfg.seeds):
                raise ConfigError(f"{where}: seeds= names a seed twice")
        elif key in ("require", "forbid", "allow"):
            getattr(cfg, key).append(_regex(val, where))
    if not cfg.idle:
        cfg.idle = default_idle(cfg.cpus)
    if cfg.require and not cfg.expect_fail:
        raise ConfigError(f"{where}: require= is for expect=fail "
                          "configurations (a passing run is judged by KTAP)")
    if cfg.seeds and not cfg.expect_fail:
        raise ConfigError(f"{where}: seeds= is for expect=fail configurations "
                          "(a run that must pass is never retried)")
    if cfg.seeds and "jitter=" not in cfg.cmdline:
        raise ConfigError(f"{where}: seeds= needs jitter= on the command line")
    if cfg.ready and not cfg.during:
        raise ConfigError(f"{where}: ready= says when to start during=; "
                          "there is no during=")
    if "'" in cfg.cmdline:
        raise ConfigError(f"{where}: the kernel command line may not "
                          "contain single quotes")
    return cfg


def parse_configs(text, filename="<configs>"):
    configs, seen = [], set()
    for n, line in enumerate(text.splitlines(), 1):
        cfg = parse_config_line(line, f"{filename}:{n}")
        if cfg is None:
            continue
        if cfg.name in seen:
            raise ConfigError(f"{filename}:{n}: configuration {cfg.name!r} "
                              "defined twice")
        seen.add(cfg.name)
        configs.append(cfg)
    return configs


def load_configs(path, root=None):
    """The configurations of a file; messages name it relative to root."""
    with open(path) as f:
        return parse_configs(f.read(), os.path.relpath(path, root)
                             if root and path.startswith(root) else path)
