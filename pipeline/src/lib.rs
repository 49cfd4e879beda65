//! Orchestration above the engine, self-play, training and evaluation crates: the pipeline's
//! stages as typed functions with typed results, the generation loop that chains them, and the
//! strength ladders. The `shogilab` binary only parses arguments and calls these functions; the
//! stages talk through the files of a run directory and hand their results back as values.
//!
//! * [`config`]: the pipeline configuration, resolved in layers (defaults, file, `--set`);
//! * [`evaluators`]: evaluators by name, the one place where checkpoints are loaded;
//! * [`selfplay`], [`train`], [`evaluate`]: the stages (job in, summary out);
//! * [`teacher`], [`teacher_value`]: engine games as training positions (teacher data), with
//!   search values;
//! * [`anchors`], [`compute`]: the learning curve against fixed agents, over generations and
//!   CPU-hours;
//! * [`run`]: the generation loop ([`run_pipeline`]);
//! * [`settings`]: saved settings and the check that a continued stage uses the same ones;
//! * [`ladder`]: strength ladders.

pub mod anchors;
pub mod compute;
pub mod config;
pub mod error;
pub mod evaluate;
pub mod evaluator_loop;
pub mod evaluators;
pub mod ladder;
pub mod run;
pub mod selfplay;
pub mod settings;
pub mod teacher;
pub mod teacher_value;
pub mod train;

pub use config::{ConfigError, EvalConfig, Layer, PipelineConfig, TeacherConfig};
pub use error::PipelineError;
pub use evaluate::{run_evaluation, EvalJob};
pub use evaluators::{
    checkpoint_for_spec, load_checkpoint_evaluator, make_evaluator, EvaluatorError,
};
pub use run::{run_pipeline, GenerationReport, PipelineReport};
pub use selfplay::{run_selfplay, SelfplayJob, SelfplaySummary};
pub use teacher::{run_teacher, TeacherJob, TeacherSummary};
pub use train::{run_train, TrainJob, TrainSummary};
