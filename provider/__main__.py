"""Entry point the Pulumi engine runs for the package: serves every nodepools component."""

from nodepools.provider.host import main

if __name__ == "__main__":
    main()
