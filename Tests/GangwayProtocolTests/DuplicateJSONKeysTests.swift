import Foundation
import GangwayProtocol
import Testing

@Suite("A key named twice in one JSON object is found, as the text it stands for; nothing else is")
struct DuplicateJSONKeysTests {
    @Test(
        "found: at the top, nested, in an object in an array, written with escapes",
        arguments: [
            (#"{"blocked": true, "blocked": false}"#, "blocked"),
            (#"{"settings": {"passwordPolicy": {"a": 1, "b": 2, "a": 3}}}"#, "a"),
            (#"{"entries": [{"level": "info"}, {"level": "x", "level": "y"}]}"#, "level"),
            (#"{"blocked": true, "\u0062locked": false}"#, "blocked"),
            (#"{"a\"b": 1, "a\u0022b": 2}"#, "a\"b"),
            (#"{"😀": 1, "\ud83d\ude00": 2}"#, "😀"),
            (#"{"x": {"y": 1}, "x": 2}"#, "x"),
        ]
    )
    func found(json: String, key: String) {
        #expect(Data(json.utf8).withUnsafeBytes(DuplicateJSONKeys.first(in:)) == key)
    }

    @Test(
        "not found: the same key in sibling or nested objects, a value equal to a key, arrays of strings, not JSON",
        arguments: [
            #"{"a": {"a": {"a": 1}}, "b": {"a": 2}}"#,
            #"{"a": "a", "b": ["a", "a", "b"], "c": "{\"a\": 1, \"a\": 2}"}"#,
            #"[{"a": 1}, {"a": 2}]"#,
            #"{"a": [{"b": 1}], "b": 1}"#,
            #"{"a": 1, "A": 2, "a ": 3}"#,
            "", "{", #"{"a": "#, #"{"a"#, "not json", "]]]}}}",
        ]
    )
    func notFound(json: String) {
        #expect(Data(json.utf8).withUnsafeBytes(DuplicateJSONKeys.first(in:)) == nil)
    }
}
