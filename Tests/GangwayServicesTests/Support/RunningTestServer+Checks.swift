import Foundation
import GangwayServerTesting
import HTTPTypes

/// Admin steps the services tests take on the app "checks" of ``ServerSeed/checks``.
extension RunningTestServer {
    /// Changes the app's settings (an `AppSettingsUpdate` as JSON).
    func updateSettings(_ json: String) async throws {
        try await admin(.patch, "/admin/apps/checks", json: #"{"settings": \#(json)}"#)
    }

    /// Sets the device registration of `user` to `status` (locked, wiped, active).
    func setDevice(of user: String, to status: String) async throws {
        let body = try await admin(.get, "/admin/apps/checks/devices").body
        let list = try JSONSerialization.jsonObject(with: body)
        let devices = (list as? [[String: Any]]) ?? ((list as? [String: Any])?["devices"] as? [[String: Any]]) ?? []
        guard
            let device = devices.first(where: {
                $0["userID"] as? String == user && $0["status"] as? String != "wiped"
            }),
            let id = device["registrationID"] as? String
        else { throw TestServerError("no registration of \(user)") }
        try await admin(.patch, "/admin/apps/checks/devices/\(id)", json: #"{"status": "\#(status)"}"#)
    }

    /// A signed activation link for the app.
    func activationLink() async throws -> String {
        let body = try await admin(.post, "/admin/apps/checks/activations").body
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        guard let link = object?["link"] as? String else { throw TestServerError("no link in the activation") }
        return link
    }
}
