import Foundation
import GangwayAdmin
import GangwayProtocol

extension AdminFormatter {
    static func destinations(_ destinations: [ManagedDestination]) -> String {
        guard !destinations.isEmpty else {
            return "No destinations. Add one with 'gangway admin destinations add NAME --url URL'."
        }
        return table(
            ["DESTINATION", "URL", "CARRIES", "REQUESTS (7 DAYS)"],
            destinations.map {
                [
                    $0.name, $0.url,
                    $0.authentication == .credential ? "credential in \($0.credentialHeader ?? "?")" : "person",
                    $0.requests.isEmpty
                        ? "none"
                        : $0.requests.map { "\($0.status == 0 ? "unreachable" : String($0.status)): \($0.count)" }
                            .joined(separator: ", "),
                ]
            }
        )
    }
}
