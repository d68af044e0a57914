//! The `disciplines!` macro: from one list of disciplines it generates everything that names
//! them all, so adding a discipline is its own file plus one line in that list (see
//! docs/architecture.md, "How to add a queue discipline"):
//!
//!
//! - `Discipline`, the enum the link holds (static dispatch), with `build`, `enqueue`,
//!   `dequeue`, `transparent_limit`, `len` and `bytes` forwarding to the discipline's `QueueDiscipline`
//!   methods;
//! - `DisciplineKind`, the scenario's `discipline = "..."` names (serde + schemars);
//! - `QueueSpec`, the scenario's queue table: `discipline`, `limit`, `limit_bytes`, and one
//!   optional sub-table per discipline that has options (`red = { ... }`), checked so that a
//!   sub-table is only given with its own discipline.
//!
//! - the module declaration of each discipline's file and the re-export of its type.
//!
//! An entry reads `module::Type = "name" { options_field } boxed, "description";`: the file
//! `module.rs` holds `Type`, which implements `QueueDiscipline`; `name` is what a scenario
//! writes; the braces are only for a discipline with options (its `QueueDiscipline::Spec`),
//! and name the sub-table; `boxed` (optional) keeps a discipline with a large state behind a
//! pointer, so that `Discipline`, which every link direction holds, stays the size of the small
//! ones (drop-tail: 56 bytes; RED's 192 made every link 128 bytes larger); the description
//! goes into the scenario schema.

macro_rules! disciplines {
    ($( $module:ident :: $variant:ident = $name:literal $({ $opt:ident })? $($boxed:ident)?, $doc:literal; )*) => {
        $(
            mod $module;
            pub use $module::$variant;
        )*

        /// A queue's discipline: the policy and the buffers it owns. An enum over the
        /// disciplines, so every call is a static dispatch.
        #[derive(Clone, Debug)]
        pub enum Discipline {
            $( #[doc = $doc] $variant(slot!($($boxed)? $variant)), )*
        }

        /// A discipline's name in a scenario (`queue = { discipline = "..." }`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
        #[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        pub enum DisciplineKind {
            #[default]
            $( #[doc = $doc] #[serde(rename = $name)] $variant, )*
        }

        impl DisciplineKind {
            /// The name a scenario uses.
            pub fn name(self) -> &'static str {
                match self { $( DisciplineKind::$variant => $name, )* }
            }

            /// The capacity when a scenario gives neither `limit` nor `limit_bytes`.
            pub fn default_limit(self) -> Limit {
                match self { $( DisciplineKind::$variant => <$variant as QueueDiscipline>::DEFAULT_LIMIT, )* }
            }
        }

        /// A queue in a scenario: its discipline, capacity and the discipline's options.
        #[derive(Clone, Debug, Default, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct QueueSpec {
            /// The queue discipline (default "droptail").
            #[serde(default)]
            pub discipline: DisciplineKind,
            /// Capacity in packets. If neither limit is given, the discipline's default: 100
            /// packets, or its own (docs/queues.md).
            #[serde(default)]
            pub limit: Option<u64>,
            /// Capacity in bytes (instead of packets).
            #[serde(default)]
            pub limit_bytes: Option<$crate::time::Size>,
            $($(
                #[doc = concat!("Options of discipline \"", $name, "\"; every one has a default.")]
                #[serde(default)]
                pub $opt: Option<<$variant as QueueDiscipline>::Spec>,
            )?)*
        }

        impl QueueSpec {
            /// Checks that each options table goes with its own discipline, then the chosen
            /// discipline's options against the queue's capacity. `at` is the queue's path.
            pub(crate) fn validate_discipline(&self, at: &str) -> Result<(), $crate::error::Error> {
                $($(
                    if self.$opt.is_some() && self.discipline != DisciplineKind::$variant {
                        return Err($crate::net::queue::invalid(
                            format!("{at}.{}", stringify!($opt)),
                            format!(
                                "does not apply to discipline \"{}\" (expected discipline = \"{}\")",
                                self.discipline.name(),
                                $name
                            ),
                        ));
                    }
                )?)*
                let limit = self.limit_or_default();
                match self.discipline {
                    $( DisciplineKind::$variant => {
                        <$variant as QueueDiscipline>::validate(&options_of!(self $(, $opt)?), limit, at)
                    } )*
                }
            }
        }

        impl Discipline {
            /// The discipline a scenario's queue asks for, on the link `link`.
            pub fn build(spec: &QueueSpec, link: &LinkContext<'_>) -> Discipline {
                let limit = spec.limit_or_default();
                match spec.discipline {
                    $( DisciplineKind::$variant => Discipline::$variant(wrap!($($boxed)?
                        <$variant as QueueDiscipline>::build(&options_of!(spec $(, $opt)?), limit, link)
                    )), )*
                }
            }

            #[inline(always)]
            pub fn enqueue(&mut self, now: SimTime, pkt: Packet, drops: &mut Drops, marks: &mut Marks) -> Result<(), DropCause> {
                match self { $( Discipline::$variant(d) => d.enqueue(now, pkt, drops, marks), )* }
            }

            #[inline(always)]
            pub fn dequeue(&mut self, now: SimTime, drops: &mut Drops, marks: &mut Marks) -> Option<Packet> {
                match self { $( Discipline::$variant(d) => d.dequeue(now, drops, marks), )* }
            }

            pub fn transparent_limit(&self) -> Option<Limit> {
                match self { $( Discipline::$variant(d) => d.transparent_limit(), )* }
            }

            #[inline]
            pub fn len(&self) -> usize {
                match self { $( Discipline::$variant(d) => d.len(), )* }
            }

            #[inline]
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            #[inline]
            pub fn bytes(&self) -> u64 {
                match self { $( Discipline::$variant(d) => d.bytes(), )* }
            }
        }
    };
}

/// The type a discipline has in `Discipline`: boxed if its entry says `boxed` (a large state
/// that would make every link's queue, drop-tail included, as large as itself).
macro_rules! slot {
    (boxed $t:ident) => {
        Box<$t>
    };
    ($t:ident) => {
        $t
    };
}

/// A built discipline as `slot!` holds it.
macro_rules! wrap {
    (boxed $e:expr) => {
        Box::new($e)
    };
    ($e:expr) => {
        $e
    };
}

/// A discipline's options from a scenario queue: its sub-table, or the defaults.
macro_rules! options_of {
    ($spec:ident) => {
        Default::default()
    };
    ($spec:ident, $opt:ident) => {
        $spec.$opt.clone().unwrap_or_default()
    };
}
