from nodepools.provider.host import main

main()
