import ArgumentParser
import GangwayProtocol

/// A name a person typed that goes in a request's path (an app's ID, an entity set, a
/// user name): checked by the rule the server holds (``IdentifierRule``) before anything
/// is sent, so an empty or mistyped one is a bad command line (exit code 64), not a
/// puzzling answer from another route.
enum IdentifierArgument {
    /// Refuses `value`, named as `what` ("the app ID"), when it breaks `rule`.
    static func check(_ value: String, as what: String, _ rule: IdentifierRule = .identifier) throws {
        guard let problem = rule.problem(value) else { return }
        // What was typed is shown as text, and not at any length.
        let shown = TextRules.shown(value, limit: 80)
        throw ValidationError("\(what) '\(shown)\(value.count > 80 ? "…" : "")' \(problem).")
    }
}
