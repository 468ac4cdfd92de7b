import GangwayCommands

await GangwayCommand.start()
