import Crypto
import Dispatch
import Foundation
import Synchronization

/// An entry ready for the database: its lookup tag and its sealed box.
struct SealedEntry: Sendable {
    var tag: Data
    var sealed: Data
    /// The tag's first and last eight bytes, big-endian: sorting by them sorts by tag.
    var order: (UInt64, UInt64)

    init(tag: Data, sealed: Data) {
        self.tag = tag
        self.sealed = sealed
        order = tag.withUnsafeBytes { bytes in
            guard bytes.count >= 16 else { return (0, 0) }
            return (
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }
}

extension StoreKeys {
    /// Entries below this count are sealed on the calling thread.
    static let parallelSealingThreshold = 256

    /// Tags and seals many entries, spread over the processor's cores, and returns them
    /// sorted by tag. Each worker draws its nonces from the system's CSPRNG in one read.
    func sealEntries(_ entries: [String: Data]) throws(SecureStoreError) -> [SealedEntry] {
        var sealed = try seal(entries.map { (name: $0.key, value: $0.value) })
        sealed.sort { $0.order < $1.order }
        return sealed
    }

    /// Tags and seals `items`, spread over the processor's cores, in the order given.
    /// Each worker draws its nonces from the system's CSPRNG in one read.
    func seal(_ items: [(name: String, value: Data)]) throws(SecureStoreError) -> [SealedEntry] {
        try spread(
            items.count,
            empty: SealedEntry(tag: Data(), sealed: Data()),
            perWorker: { range in SecureRandom.data(count: range.count * Self.nonceSize) }
        ) { index, offset, nonces, keys throws(SecureStoreError) in
            let (name, value) = items[index]
            let tag = keys.tag(forName: name)
            let start = nonces.startIndex + offset * Self.nonceSize
            let nonce = try Self.nonce(nonces[start..<(start + Self.nonceSize)])
            return SealedEntry(tag: tag, sealed: try keys.sealEntry(name: name, value: value, tag: tag, nonce: nonce))
        }
    }

    /// Opens many sealed entries, spread over the processor's cores, in the order given:
    /// each one's name and value.
    func open(_ rows: [(tag: Data, sealed: Data)]) throws(SecureStoreError) -> [(name: String, value: Data)] {
        try spread(rows.count, empty: (name: "", value: Data()), perWorker: { _ in () }) {
            index,
            _,
            _,
            keys throws(SecureStoreError) in
            try keys.openEntry(rows[index].sealed, tag: rows[index].tag)
        }
    }

    /// `count` values, the one at `index` made by `make`, in ranges spread over the
    /// processor's cores (one range below ``parallelSealingThreshold``). Each worker has
    /// keys of its own and what `prepare` gives for its range; `make` is told the index,
    /// its offset in the range, that and the keys. The first error a worker meets is
    /// thrown, once every worker has stopped.
    private func spread<Value, Prepared>(
        _ count: Int,
        empty: Value,
        perWorker prepare: @Sendable (Range<Int>) -> Prepared,
        _ make: @Sendable (Int, Int, Prepared, StoreKeys) throws(SecureStoreError) -> Value
    ) throws(SecureStoreError) -> [Value] {
        let workers =
            count < Self.parallelSealingThreshold ? 1 : max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        var values = [Value](repeating: empty, count: count)
        let failure = Mutex<SecureStoreError?>(nil)
        let chunk = (count + workers - 1) / workers
        values.withUnsafeMutableBufferPointer { buffer in
            // Each worker writes only its own range of the buffer.
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let range = (worker * chunk)..<min(count, (worker + 1) * chunk)
                let keys = workers == 1 ? self : self.workerCopy()
                let prepared = prepare(range)
                do throws(SecureStoreError) {
                    for (offset, index) in range.enumerated() {
                        output[index] = try make(index, offset, prepared, keys)
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return values
    }

    /// The same keys in storage of their own, so workers on different cores do not
    /// contend for the reference counts of shared key buffers.
    func workerCopy() -> StoreKeys {
        StoreKeys(dataKey: dataKey.withUnsafeBytes { SymmetricKey(data: $0) }, storeID: storeID)
    }

    /// Bytes of an AES-GCM nonce.
    static let nonceSize = 12

    private static func nonce(_ bytes: Data) throws(SecureStoreError) -> AES.GCM.Nonce {
        do {
            return try AES.GCM.Nonce(data: bytes)
        } catch {
            throw .ioFailure("sealing failed")
        }
    }
}
