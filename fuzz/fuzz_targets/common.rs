//! The checks every compiled module must pass, shared by `compile` and `generate`.

use tooldef::emit::{self, Options, Target};
use tooldef::validate::{Mode, Validator};
use tooldef::Module;

/// Each of `targets` emits or fails cleanly, every validator builds or fails cleanly (and runs on
/// `{}`), and the printed model compiles to a model that prints the same and emits the same
/// `json-schema` document.
pub fn check_module(m: &Module, targets: &[Target]) {
    let options = Options { warnings: true };
    for &target in targets {
        let _ = emit::tools(m, target, &options);
    }
    for tool in &m.tools {
        if let Ok(v) = Validator::new(m, tool) {
            let _ = v.validate_str("{}", Mode::Strict);
            let _ = v.validate_str("{}", Mode::Lax);
        }
        let _ = Validator::for_output(m, tool);
    }
    let printed = m.to_source().expect("a compiled model prints");
    let again = tooldef::compile(&printed)
        .unwrap_or_else(|e| panic!("the printed model does not compile: {e:?}\n{printed}"));
    assert_eq!(
        again.module.to_source().expect("prints"),
        printed,
        "printing is not a fixpoint"
    );
    let a = emit::tools(m, Target::JsonSchema, &options).map(|e| e.json);
    let b = emit::tools(&again.module, Target::JsonSchema, &options).map(|e| e.json);
    assert_eq!(
        a.is_ok(),
        b.is_ok(),
        "json-schema emission differs\n{printed}"
    );
    if let (Ok(a), Ok(b)) = (a, b) {
        assert_eq!(a, b, "the printed model emits another schema\n{printed}");
    }
}
