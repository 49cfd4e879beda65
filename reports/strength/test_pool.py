"""Tests of pool.py over match folders written here: the colour-swapped matches counted from the
pooled agent's side, and matches of other agents or settings refused with the field named.

    python3 -m unittest discover -s reports/strength -p 'test_*.py'   (scripts/test runs it)"""
import json, os, shutil, subprocess, sys, tempfile, unittest

POOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pool.py")
NET, AB = "mcts:net.ot@movetime=1000", "alphabeta:2@movetime=1000"


def write_match(folder, name, a, b, wins, draws, losses, seed, max_plies=4000):
    os.makedirs(os.path.join(folder, name))
    settings = {"a": a, "b": b, "games": wins + draws + losses, "max_plies": max_plies,
                "seed": seed, "variant": "tai"}
    match = {"a": a, "b": b, "wins": wins, "draws": draws, "losses": losses,
             "games": wins + draws + losses, "forfeit_wins": 0, "forfeit_losses": 0,
             "nodes_per_move": [500.0, 300000.0] if a == NET else [300000.0, 500.0],
             "settings": settings}
    with open(os.path.join(folder, name, "match.json"), "w") as f:
        json.dump(match, f)


def pool(folder, *args):
    return subprocess.run([sys.executable, POOL, folder, *args], capture_output=True, text=True)


class Pool(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pool-test-")
        write_match(self.dir, "net-ab2-s1-black", NET, AB, 2, 1, 0, seed=1)
        write_match(self.dir, "ab2-net-s1-white", AB, NET, 1, 2, 3, seed=1)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_a_colour_swapped_match_counts_from_the_pooled_agents_side(self):
        out = pool(self.dir, "net-ab2", "ab2-net")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(f"as seen by {NET}", out.stdout)
        self.assertIn("games 9: +5 (0 by forfeit) =3 -1 (0 by forfeit)", out.stdout)
        self.assertIn("nodes per move 500 / 300000", out.stdout)

    def test_the_agent_can_be_named(self):
        out = pool(self.dir, "net-ab2", "ab2-net", "--agent", AB)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("games 9: +1 (0 by forfeit) =3 -5 (0 by forfeit)", out.stdout)

    def test_another_setting_is_refused_with_its_field(self):
        write_match(self.dir, "net-ab2-s2-black", NET, AB, 1, 0, 0, seed=2, max_plies=2000)
        out = pool(self.dir, "net-ab2")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("differ in max_plies: 4000 against 2000", out.stderr)
        self.assertNotIn("games", out.stdout)

    def test_a_match_without_the_agent_is_refused(self):
        write_match(self.dir, "net-ab2-s3-black", "mcts:other.ot@movetime=1000", AB, 1, 0, 0, seed=3)
        out = pool(self.dir, "net-ab2")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("net-ab2-s3-black: neither agent is", out.stderr)

    def test_a_prefix_that_matches_nothing_is_refused(self):
        out = pool(self.dir, "nothing")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no match.json", out.stderr)


if __name__ == "__main__":
    unittest.main()
