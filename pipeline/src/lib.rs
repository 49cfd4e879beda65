//! Orchestration above the engine, self-play, training and evaluation crates: the pipeline's
//! stages as typed functions with typed results, the generation loop that chains them, and the
//! strength ladders. The `shogilab` binary only parses arguments and calls these functions; the
//! stages talk through the files of a run directory and hand their results back as values.

pub mod ladder;
