//! Printer and formatter tests.

#[test]
fn examples_round_trip_through_the_model_printer() {
    for entry in std::fs::read_dir("examples").unwrap() {
        let path = entry.unwrap().path();
        let source = std::fs::read_to_string(&path).unwrap();
        let m = tooldef::compile(&source).unwrap().module;
        let printed = tooldef::print::module(&m).unwrap();
        let again = tooldef::compile(&printed)
            .unwrap_or_else(|e| panic!("{}: {e:?}\n{printed}", path.display()))
            .module;
        assert_eq!(again, m, "{}:\n{printed}", path.display());
        let formatted = tooldef::print::format(&source).unwrap();
        if path.ends_with("weather.tool") {
            println!("{formatted}");
        }
        assert_eq!(tooldef::print::format(&formatted).unwrap(), formatted, "{}", path.display());
        assert_eq!(tooldef::compile(&formatted).unwrap().module, m);
    }
}
