"""The schedule within a time and a write budget, with a simulated clock and simulated runs: no
run starts past the deadline or is given more than the time left, the work is scaled after the
warm-up pair (and said so), a warm-up that cannot finish is cut, unequal work stops the case."""
from mmaplint.analyzer.confirm.run import RunStopped
from mmaplint.analyzer.confirm.schedule import LOOKS, MAX_PAIRS, Scale, measure
from mmaplint.analyzer.confirm.stats import MIN_PAIRS


class Machine:
    """Runs that take `seconds_per_unit * work` and write `bytes_per_unit * work`."""

    def __init__(self, seconds_per_unit=0.001, bytes_per_unit=0, work=1000, useful=None):
        self.now, self.seconds_per_unit, self.bytes_per_unit, self.default = 0.0, seconds_per_unit, bytes_per_unit, work
        self.useful = useful or {}
        self.calls = []

    def clock(self):
        return self.now

    def run(self, variant, extra, timeout, max_written):
        work = int(extra[1]) if extra else self.default
        took = self.seconds_per_unit * work * (3 if variant == "bad" else 1)
        self.calls.append((variant, work, timeout))
        if took > timeout:
            self.now += timeout
            raise RunStopped(variant, "did not finish")
        if self.bytes_per_unit * work > max_written:
            self.now += took * max_written / (self.bytes_per_unit * work)
            raise RunStopped(variant, "wrote too much", int(max_written))
        self.now += took
        return {"variant": variant, "total_write_bytes": self.bytes_per_unit * work,
                "useful_bytes": self.useful.get(variant, work), "ops": work}


def test_pairs_alternate_until_max_pairs_when_there_is_time():
    m = Machine()
    out = measure(m.run, ("bad", "fixed"), 1000.0, 1 << 30, Scale("records", 1000), clock=m.clock)
    assert len(out.pairs) == MAX_PAIRS and out.stopped is None and out.notes == []
    firsts = [m.calls[2 + 2 * i][0] for i in range(4)]
    assert firsts == ["bad", "fixed", "bad", "fixed"]


def test_the_deadline_bounds_every_run_and_the_work_is_scaled_after_the_warm_up_pair():
    m = Machine(seconds_per_unit=0.01)          # a pair takes 40 s at the default work
    out = measure(m.run, ("bad", "fixed"), 100.0, 1 << 30, Scale("records", 1000), clock=m.clock)
    assert m.now <= 100.0
    assert out.scaled_to is not None and out.scaled_to < 1000
    assert any(note.startswith("scaled records 1000 -> ") for note in out.notes)
    assert len(out.pairs) >= MIN_PAIRS and out.stopped is None
    assert {work for _, work, _ in m.calls[2:]} == {out.scaled_to}


def test_a_warm_up_that_cannot_finish_is_cut_and_said_so():
    m = Machine(seconds_per_unit=0.1)           # a bad run takes 300 s, the budget is 30
    out = measure(m.run, ("bad", "fixed"), 30.0, 1 << 30, Scale("records", 1000), clock=m.clock)
    assert m.now <= 30.0
    assert any("work cut by 8" in note for note in out.notes)
    assert out.pairs or out.stopped


def test_a_budget_too_small_ends_without_a_verdict_and_says_why():
    m = Machine(seconds_per_unit=1.0)
    out = measure(m.run, ("bad", "fixed"), 5.0, 1 << 30, Scale(None, None), clock=m.clock)
    assert m.now <= 5.0
    assert out.stopped and "did not finish" in out.stopped and out.pairs == []


def test_the_write_cap_holds_from_the_first_run():
    m = Machine(bytes_per_unit=1 << 20)          # 1000 MiB per run at the default work
    cap = 256 << 20
    out = measure(m.run, ("bad", "fixed"), 100.0, cap, Scale("records", 1000), clock=m.clock)
    assert out.bytes_written <= cap
    assert "work cut by 8" in out.notes[0] and out.scaled_to < 1000
    assert len(out.pairs) >= MIN_PAIRS


def test_unequal_work_stops_the_case():
    m = Machine(useful={"bad": 1, "fixed": 2})
    out = measure(m.run, ("bad", "fixed"), 100.0, 1 << 30, Scale("records", 1000), clock=m.clock)
    assert out.stopped and "unequal work" in out.stopped and "useful_bytes 1 vs 2" in out.stopped


def test_a_decided_verdict_ends_the_pairs_at_a_look_only():
    m = Machine()
    seen = []

    def decided(pairs):
        seen.append(len(pairs))
        return len(pairs) >= LOOKS[0]
    out = measure(m.run, ("bad", "fixed"), 100.0, 1 << 30, Scale("records", 1000), clock=m.clock, decided=decided)
    assert len(out.pairs) == LOOKS[0] and seen == [LOOKS[0]]


def test_an_a_a_check_alternates_slots_of_the_same_variant():
    m = Machine()
    out = measure(m.run, ("fixed", "fixed"), 1000.0, 1 << 30, Scale("records", 1000), clock=m.clock)
    assert len(out.pairs) == MAX_PAIRS
    assert {c[0] for c in m.calls} == {"fixed"}
