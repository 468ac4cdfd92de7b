import Foundation
import GangwayPolicy
import Testing

@testable import GangwayStore

@Suite("Secure random bytes")
struct SecureRandomTests {
    @Test(arguments: [0, 1, 12, 4_096, 1 << 20])
    func returnsExactlyTheBytesAskedFor(count: Int) {
        #expect(SecureRandom.data(count: count).count == count)
    }

    @Test func drawsAreIndependentAndNotBlank() {
        let draws = (0..<64).map { _ in SecureRandom.data(count: 32) }
        #expect(Set(draws).count == draws.count)
        #expect(!draws.contains(Data(count: 32)))
        // A megabyte of output uses every byte value; a stuck or short read would not.
        let large = SecureRandom.data(count: 1 << 20)
        #expect(Set(large).count == 256)
        #expect(large.suffix(4_096) != Data(count: 4_096), "the tail of a large read is filled too")
    }
}
