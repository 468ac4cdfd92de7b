import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes

/// Where a device's copy of an entity set stands in the set's change log, and the text
/// the device keeps for it (opaque to the device; its form is the server's).
///
/// A sync is a run of pages that ends at a checkpoint: the set's last position when the
/// sync began. Every write up to a checkpoint has committed (positions become visible in
/// their order, ``ServerStorage/entityLog(appID:entitySet:after:through:includingRemovals:limit:)``),
/// so the pages up to it are one state of the set, and a device that applies them
/// together never shows half of a write.
///
/// Forms: `1.P` (current through `P`, between syncs), `1.P.C` (a sync under way, read
/// through `P`, ending at `C`) and `1.P.C.s` (the same, from an empty copy). A copy at
/// position 0 holds nothing, so it needs no removals, and a sync from it leaves
/// tombstones out until its checkpoint.
struct SyncCursor: Hashable, Sendable {
    /// The position the device's copy is current through.
    var position: Int64
    /// Where the sync under way ends; `nil` between syncs.
    var checkpoint: Int64?
    /// Whether the sync under way started from an empty copy.
    var fromStart: Bool

    /// A copy that holds nothing yet.
    static let start = SyncCursor(position: 0, checkpoint: nil, fromStart: true)

    /// The form's version: a later server that changes the form reads this one or
    /// answers `CURSOR_EXPIRED`.
    private static let form = "1"

    init(position: Int64, checkpoint: Int64?, fromStart: Bool) {
        self.position = position
        self.checkpoint = checkpoint
        self.fromStart = fromStart || position == 0
    }

    /// The cursor `text` writes; `nil` for a text this server does not write.
    init?(text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...4).contains(parts.count), parts[0] == Self.form, let position = Self.number(parts[1]) else {
            return nil
        }
        guard parts.count > 2 else {
            self.init(position: position, checkpoint: nil, fromStart: false)
            return
        }
        guard let checkpoint = Self.number(parts[2]), checkpoint > position else { return nil }
        guard parts.count == 3 || parts[3] == Self.fromStartMark else { return nil }
        self.init(position: position, checkpoint: checkpoint, fromStart: parts.count == 4)
    }

    var text: String {
        guard let checkpoint else { return "\(Self.form).\(position)" }
        return "\(Self.form).\(position).\(checkpoint)" + (fromStart && position > 0 ? "." + Self.fromStartMark : "")
    }

    /// Why a page read from this cursor cannot bring the copy up to date, if it cannot:
    /// the set's log is behind the cursor (the server's data is older than the copy), or
    /// removals past the cursor were forgotten. Either way the device reads the set again
    /// from the start.
    func refusal(of page: EntityLogPage) -> APIError? {
        if max(position, checkpoint ?? 0) > page.lastPosition {
            return APIError(
                .gone,
                .cursorExpired,
                "The server's copy of this set is older than yours: read the set again from the start, without a cursor."
            )
        }
        if !fromStart, position < page.purgedThrough {
            return APIError(
                .gone,
                .cursorExpired,
                "Your copy of this set is older than the removals the server keeps (\(EntityLimits.removalsKeptDays) days): read the set again from the start, without a cursor."
            )
        }
        return nil
    }

    /// The cursor after `page`, read from this one, and whether the sync goes on: through
    /// the page's last entry while pages remain up to the checkpoint, then through the
    /// checkpoint itself (the set's last position when the sync began).
    func next(after page: EntityLogPage) -> (cursor: SyncCursor, more: Bool) {
        let checkpoint = checkpoint ?? page.lastPosition
        guard page.hasMore, let last = page.entries.last?.position, last < checkpoint else {
            return (SyncCursor(position: max(checkpoint, position), checkpoint: nil, fromStart: false), false)
        }
        return (SyncCursor(position: last, checkpoint: checkpoint, fromStart: fromStart), true)
    }

    /// Marks a sync under way from an empty copy.
    private static let fromStartMark = "s"

    /// A decimal position: digits only, no sign and no leading zero.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            text == "0" || text.first != "0"
        else { return nil }
        guard let value = Int64(text) else { return nil }
        return value
    }
}
