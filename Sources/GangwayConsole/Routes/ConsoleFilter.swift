import GangwayProtocol
import GangwayServerStorage

/// A console page's filters as its address gives them. The pages' own forms send only
/// values they offer; an address typed or kept from before (an app since removed, a
/// status misspelled) is said on the page, which then shows what it would without the
/// filter, answered 400, rather than passed over as if it had been applied.
enum ConsoleFilter {
    /// What is wrong with the app `asked` for, if it is not one of `apps`.
    static func app(_ asked: String?, in apps: [AppRecord]) -> String? {
        guard let asked, !asked.isEmpty, !apps.contains(where: { $0.id == asked }) else { return nil }
        return "There is no app '\(TextRules.shown(asked, limit: 64))'."
    }

    /// What is wrong with `given` as the page's `name` filter, if it is not one of `allowed`.
    static func value(_ given: String?, _ name: String, allowed: [String]) -> String? {
        guard let given, !given.isEmpty, !allowed.contains(given) else { return nil }
        return "'\(TextRules.shown(given, limit: 64))' is not a \(name): \(allowed.joined(separator: ", "))."
    }

    /// What is wrong with `given` as an entity set's name, if it cannot be one.
    static func entitySet(_ given: String?) -> String? {
        guard let given, !given.isEmpty, !EntityLimits.isIdentifier(given) else { return nil }
        return "'\(TextRules.shown(given, limit: 64))' is not an entity set's name."
    }

    /// What is wrong with `given` as an entity's ID to list after, if it cannot be one.
    static func entityID(_ given: String?) -> String? {
        guard let given, !given.isEmpty, !EntityLimits.isIdentifier(given) else { return nil }
        return "'\(TextRules.shown(given, limit: 64))' is not an entity's ID."
    }

    /// The problems found, as one sentence each, or `nil` when there is none.
    static func problems(_ found: String?...) -> String? {
        let problems = found.compactMap(\.self)
        return problems.isEmpty ? nil : problems.joined(separator: " ")
    }
}
