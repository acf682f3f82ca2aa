//! What a run over a value makes besides its problems: the kinds of run the walk is generic
//! over. Every run collects the problems it finds; a sink adds whether scalars are coerced
//! (lax mode), whether the normalized value is built, and whether absent fields get their
//! defaults. Each is a type, so a rule reads `S::LAX` where the run once carried a flag, and
//! the compiler drops the branches a kind of run never takes.
//!
//! Some values are walked by another kind of run than the one around them; each sink names
//! those kinds ([`Sink::Items`], [`Sink::AsSent`], [`Sink::Exact`], [`Sink::Coercing`]), so
//! the set of runs is closed and known here.

/// A kind of run over a value.
pub(crate) trait Sink {
    /// Whether scalars are coerced to the type the schema wants (lax mode).
    const LAX: bool;
    /// Whether the normalized value is built; a run that builds nothing returns `Value::Null`
    /// for every valid value.
    const BUILD: bool;
    /// Whether absent optional fields get their defaults in the built value.
    const FILL_DEFAULTS: bool;
    /// The run over the items of a `@unique` array: lax mode judges uniqueness on the coerced
    /// items, so it builds them even where it builds nothing else.
    type Items: Sink;
    /// The run that judges the items of a `@unique` array as sent: built, without defaults
    /// (defaults are annotations, so items that differ only in a left-out field are distinct).
    type AsSent: Sink;
    /// The run that tries a union's member without coercion.
    type Exact: Sink;
    /// The run that tries a union's member with coercion (lax mode's second pass).
    type Coercing: Sink;
}

/// Declares a sink and the runs it hands values to.
macro_rules! sinks {
    ($($(#[$doc:meta])* $name:ident: lax $lax:literal, build $build:literal,
        defaults $fill:literal; items $items:ident, as_sent $as_sent:ident,
        exact $exact:ident, coercing $coercing:ident;)*) => {$(
        $(#[$doc])*
        pub(crate) struct $name;

        impl Sink for $name {
            const LAX: bool = $lax;
            const BUILD: bool = $build;
            const FILL_DEFAULTS: bool = $fill;
            type Items = $items;
            type AsSent = $as_sent;
            type Exact = $exact;
            type Coercing = $coercing;
        }
    )*};
}

sinks! {
    /// Strict mode's problems only (an invalid call's errors, the checker's question).
    Collect: lax false, build false, defaults true;
        items Collect, as_sent BareBuild, exact Collect, coercing LaxBuild;
    /// Lax mode's problems and coercions, building only what coercion decides.
    LaxCollect: lax true, build false, defaults true;
        items LaxBuild, as_sent BareLaxBuild, exact Collect, coercing LaxBuild;
    /// Strict mode's normalized value.
    Build: lax false, build true, defaults true;
        items Build, as_sent BareBuild, exact Build, coercing LaxBuild;
    /// Lax mode's coerced and normalized value.
    LaxBuild: lax true, build true, defaults true;
        items LaxBuild, as_sent BareLaxBuild, exact Build, coercing LaxBuild;
    /// [`Build`] without defaults: `@unique` items as sent.
    BareBuild: lax false, build true, defaults false;
        items BareBuild, as_sent BareBuild, exact BareBuild, coercing BareLaxBuild;
    /// [`LaxBuild`] without defaults: `@unique` items as sent, coerced.
    BareLaxBuild: lax true, build true, defaults false;
        items BareLaxBuild, as_sent BareLaxBuild, exact BareBuild, coercing BareLaxBuild;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kinds of run each sink hands values to differ from it in exactly what their names
    /// say.
    fn hands_on<S: Sink>() -> bool {
        let items = S::Items::LAX == S::LAX
            && S::Items::BUILD == (S::BUILD || S::LAX)
            && S::Items::FILL_DEFAULTS == S::FILL_DEFAULTS;
        let as_sent = S::AsSent::LAX == S::LAX && S::AsSent::BUILD && !S::AsSent::FILL_DEFAULTS;
        let exact = !S::Exact::LAX
            && S::Exact::BUILD == S::BUILD
            && S::Exact::FILL_DEFAULTS == S::FILL_DEFAULTS;
        let coercing = S::Coercing::LAX
            && S::Coercing::BUILD
            && S::Coercing::FILL_DEFAULTS == S::FILL_DEFAULTS;
        // Defaults are left out only while building the items as sent.
        let fills = S::FILL_DEFAULTS || S::BUILD;
        items && as_sent && exact && coercing && fills
    }

    #[test]
    fn each_sink_hands_values_to_the_runs_it_names() {
        assert!(hands_on::<Collect>());
        assert!(hands_on::<LaxCollect>());
        assert!(hands_on::<Build>());
        assert!(hands_on::<LaxBuild>());
        assert!(hands_on::<BareBuild>());
        assert!(hands_on::<BareLaxBuild>());
    }
}
