import Foundation
import GangwayProtocol
import Testing

@Suite("An admin body's keys, checked against the API document at every depth")
struct DocumentedFieldsTests {
    static func fields() throws -> DocumentedFields {
        let root = try #require(try JSONSerialization.jsonObject(with: APIDocument.json()) as? [String: Any])
        return DocumentedFields(document: root, operations: ["updateApp", "putEntity", "createApp", "updateUser"])
    }

    @Test(
        "a key no schema names is found, by its path; maps (entity sets, an entity's fields) take any key",
        arguments: [
            ("updateApp", #"{"name": "x"}"#, nil),
            ("updateApp", #"{"settings": {"passwordPolicy": {"passwordPolicyMinLength": 8}}}"#, nil),
            ("updateApp", #"{"settings": {"passwordPolicy": {"minLength": 8}}}"#, "settings.passwordPolicy.minLength"),
            (
                "updateApp",
                #"{"settings": {"dataSettings": {"entitySets": {"any-name": {"writableFields": ["a"]}}}}}"#,
                nil
            ),
            (
                "updateApp", #"{"settings": {"dataSettings": {"entitySets": {"s": {"x": 1}}}}}"#,
                "settings.dataSettings.entitySets.s.x"
            ),
            ("updateApp", #"{"emailDomains": ["a.example"], "bogus": 1}"#, "bogus"),
            ("putEntity", #"{"fields": {"anything": "goes", "else": "too"}}"#, nil),
            ("putEntity", #"{"fields": {}, "version": 1, "extra": true}"#, "extra"),
            (
                "createApp", #"{"appID": "a", "name": "A", "settings": {"consentSettings": {"eula": "1"}}}"#,
                "settings.consentSettings.eula"
            ),
            ("updateUser", #"{"blocked": true}"#, nil),
            ("updateUser", "not json", nil),
            ("listApps", #"{"anything": 1}"#, nil),
        ]
    )
    func unknown(operation: String, body: String, path: String?) throws {
        #expect(try Self.fields().unknownField(in: Data(body.utf8), operationID: operation) == path)
    }
}
