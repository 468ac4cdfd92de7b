import GangwayServices

/// The demo app's aircraft checks (entity set `checks`), one line per check, the same
/// on the home screen and in demo mode.
///
/// A check's fields: `aircraft` (type and registration), `stand`, `item`, `status`
/// (`open` or `done`) and an optional `reading`. Missing fields show as "?".
public enum ChecksText {
    /// The entity set the demo app serves its checks in.
    public static let entitySet = "checks"

    /// One line per check: "F-GKXA-fuel       A320 F-GKXA   stand 12   fuel level      open".
    public static func lines(_ checks: [AppEntity]) -> [String] {
        lines(checks.map { OfflineWork.ShownEntity(entity: $0, pending: false, needsAttention: false) })
    }

    /// One line per check as the user sees it, the ones their pending changes touch marked
    /// "(pending)", and those the server answered with a conflict or a refusal "(see pending)".
    public static func lines(_ shown: [OfflineWork.ShownEntity]) -> [String] {
        shown.map { item in
            let check = item.entity
            let mark =
                item.needsAttention
                ? "  " + localized("checks.seePending") : item.pending ? "  " + localized("checks.pending") : ""
            let columns = [
                pad(check.id, 17),
                pad(check["aircraft"] ?? "?", 13),
                pad(localized("checks.stand", check["stand"] ?? "?"), 10),
                pad(check["item"] ?? "?", 16),
                pad(check["status"] ?? "?", 5),
                check["reading"] ?? "",
            ]
            return columns.joined(separator: " ").trimmingTrailingSpaces() + mark
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
