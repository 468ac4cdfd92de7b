import Foundation

extension ChangeResult {
    /// The JSON of a plain result (no conflicts, no rejection: every applied change, and
    /// a duplicate of one), written straight instead of through `JSONEncoder`, whose
    /// fixed cost per value was most of what keeping a result took; `nil` for any other
    /// result, which goes through `JSONEncoder`. Its Codable form reads it back equal.
    public var plainJSON: Data? {
        guard conflicts.isEmpty, rejection == nil else { return nil }
        var text = #"{"changeID":""# + changeID.lowercasedText + #"","conflicts":[]"#
        if let original { text += #","original":""# + original.rawValue + #"""# }
        text += #","outcome":""# + outcome.rawValue + #"""#
        if let version { text += #","version":"# + String(version) }
        return Data((text + "}").utf8)
    }
}

extension ChangeAnswer {
    /// The JSON of an answer with a plain result and no entity (see
    /// ``ChangeResult/plainJSON``); `nil` for any other answer.
    public var plainJSON: Data? {
        guard entity == nil, let result = result.plainJSON else { return nil }
        return Data(#"{"result":"#.utf8) + result + Data("}".utf8)
    }
}
