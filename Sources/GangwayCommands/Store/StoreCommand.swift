import ArgumentParser

/// `gangway store`: work a secure store directly.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Create, read, write and inspect an encrypted secure store.",
        discussion: """
            A store is a directory holding an encrypted SQLite database. Its device key \
            (which authenticates the records read before unlock) is kept apart from it, in \
            the device key directory (--device-keys, default $GANGWAY_DEVICE_KEYS or \
            ~/.gangway/device-keys).

            Passcodes are read from the terminal without echo. With --passcode-stdin they are \
            read from standard input, one per line (for passwd: the current one, then the new \
            one); for put without VALUE, the rest of standard input is the value.

            Exit codes:
              0  success
              1  any other failure (the message says which)
              3  wrong passcode
              4  the store was erased after too many wrong passcodes
              5  stored data failed its integrity check, or was tampered with
              6  the passcode was rejected by the policy
              7  key not found
             64  invalid command line
            """,
        subcommands: [
            StoreInit.self, StorePut.self, StoreGet.self, StoreList.self, StoreRemove.self,
            StorePasswd.self, StoreInfo.self, StoreDestroy.self, StoreDemo.self,
        ]
    )
}
