import Foundation
import GangwayProtocol
import NIOCore
import NIOFoundationCompat
import OpenAPIRuntime
import Synchronization

/// The last body encoded per key, reused while the value to answer is equal to the one
/// it was encoded from: comparing two values costs far less than encoding one.
///
/// Encodes as the generated server does (compact JSON, sorted keys, Gangway's dates), so
/// the bytes are the same whichever path answers. Holds at most `capacity` keys, then
/// starts over, so a caller asking for many keys cannot grow it without bound.
final class EncodedBodyCache<Value: Encodable & Equatable & Sendable>: Sendable {
    private let entries = Mutex<[String: (value: Value, body: ByteBuffer)]>([:])
    private let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    func body(for value: Value, key: String) throws -> ByteBuffer {
        if let hit = entries.withLock({ $0[key] }), hit.value == value { return hit.body }
        let body = ByteBuffer(data: try JSONEncoder.gangway.encode(value))
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = (value, body)
        }
        return body
    }
}
