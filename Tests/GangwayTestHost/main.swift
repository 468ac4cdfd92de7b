// The `gangway` command as Gangway's end-to-end tests run it: the same commands, with the
// test hooks read from the environment. This target is built for the tests only; the
// shipped `gangway` executable reads none of these variables.
import Foundation
@_spi(Testing) import GangwayCommands

let variables = ProcessInfo.processInfo.environment
await GangwayCommand.start(
    hooks: TestHooks(
        passcodeRounds: variables["GANGWAY_KDF_ROUNDS"].flatMap(Int.init),
        crashPoint: variables["GANGWAY_TEST_CRASH_AT"],
        uploadBatchSize: variables["GANGWAY_TEST_UPLOAD_BATCH"].flatMap(Int.init)
    )
)
