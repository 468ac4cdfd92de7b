import GangwayProtocol
import Testing

@Suite("The rule of names in paths: said in the same words wherever it is checked")
struct IdentifierRuleTests {
    static let rule =
        "must start with an ASCII letter or digit and hold only ASCII letters, digits and '.', '_' and '-'"

    @Test(
        "IDs: a letter or digit first, then letters, digits, '.', '_' and '-'; 1 to 64",
        arguments: [
            ("checks", nil), ("F-GKXA_fuel.2", nil), ("9", nil), (String(repeating: "a", count: 64), nil),
            ("", "must be 1 to 64 characters long"),
            (String(repeating: "a", count: 65), "must be 1 to 64 characters long"),
            ("-x", rule), (".", rule), ("..", rule), ("a b", rule), ("ü", rule), ("a@b", rule), ("a/b", rule),
        ] as [(String, String?)]
    )
    func identifiers(value: String, problem: String?) {
        #expect(IdentifierRule.identifier.problem(value) == problem)
        #expect(IdentifierRule.identifier.matches(value) == (problem == nil))
        #expect(EntityLimits.isIdentifier(value) == (problem == nil))
    }

    @Test("user and operator names take '@' too, within their own lengths")
    func names() {
        #expect(IdentifierRule.username.matches("alice@airline.example"))
        #expect(IdentifierRule.operatorName.matches("ops.alice"))
        #expect(IdentifierRule.username.matches(String(repeating: "a", count: 128)))
        #expect(
            IdentifierRule.operatorName.problem(String(repeating: "a", count: 65)) == "must be 1 to 64 characters long"
        )
        #expect(
            IdentifierRule.username.problem("=cmd|x")
                == "must start with an ASCII letter or digit and hold only ASCII letters, digits and '.', '_', '@' and '-'"
        )
    }
}
