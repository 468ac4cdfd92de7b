import Foundation
import GangwayProtocol
import Testing

@Suite("Operation access: every operation of the document says who may call it, as its security does")
struct OperationAccessContractTests {
    @Test(
        "each operation has an x-minimum-role: anyone when unsecured, device for a session, a role for the admin token"
    )
    func everyOperationHasOne() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: APIDocument.json()) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let table = try OperationAccess.table(document: APIDocument.json())
        var seen = 0
        for (path, methods) in paths {
            for (method, value) in methods {
                let operation = try #require(value as? [String: Any])
                let id = try #require(operation["operationId"] as? String)
                seen += 1
                let access = try #require(table[id], "\(method) \(path) has no \(OperationAccess.documentKey)")
                let schemes = (operation["security"] as? [[String: Any]] ?? []).flatMap(\.keys)
                switch access {
                case .anyone: #expect(schemes.isEmpty, "\(id)")
                case .device: #expect(schemes == ["session"], "\(id)")
                case .role: #expect(schemes == ["admin"], "\(id)")
                }
                // A read needs no more than the viewer's role.
                if method == "get", case .role(let role) = access, id != "getActivationQRCode" {
                    #expect(role == .viewer, "\(id)")
                }
            }
        }
        #expect(table.count == seen)
    }

    @Test("the access reads back as the document writes it, and nothing else is one")
    func documentedText() {
        for text in ["anyone", "device", "viewer", "operator", "admin"] {
            #expect(OperationAccess(documented: text)?.description == text)
        }
        for text in ["", "Admin", "root", "session", " viewer"] {
            #expect(OperationAccess(documented: text) == nil, "\(text)")
        }
    }
}
